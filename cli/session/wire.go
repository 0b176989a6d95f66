package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// One request per socket connection, one JSON line each way.

type Request struct {
	Op          string   `json:"op"` // run, ping, close
	Argv        []string `json:"argv,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	IdleMinutes *float64 `json:"idle_timeout,omitempty"`
}

type Reply struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Info   *Info  `json:"info,omitempty"`
}

// Info is what a ping learns about a running session.
type Info struct {
	Pid         int     `json:"pid"`
	Phase       string  `json:"phase"`
	UptimeMS    int64   `json:"uptime_ms"`
	IdleMinutes float64 `json:"idle_timeout"`
	DaemonPid   int     `json:"daemon_pid"`
}

// Spec is what the client hands a new daemon on its stdin: env values
// travel there, never on a command line another user could read.
type Spec struct {
	Name             string            `json:"name"`
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Env              map[string]string `json:"env"`
	Cwd              string            `json:"cwd"`
	URL              string            `json:"url"`
	Protocol         string            `json:"protocol"`
	ConnectTimeoutMS int               `json:"connect_timeout_ms"`
	IdleMinutes      float64           `json:"idle_timeout"`
}

// StartStatus is the daemon's first and only line on its status pipe.
type StartStatus struct {
	OK    bool   `json:"ok"`
	Code  int    `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

// ErrNoAnswer is a daemon that took the request and never answered.
type ErrNoAnswer struct{ After time.Duration }

func (e ErrNoAnswer) Error() string { return fmt.Sprintf("no answer after %s", e.After) }

// ask sends one request to the daemon at socket and waits up to wait for
// the reply.
func Ask(socket string, req Request, wait time.Duration) (*Reply, error) {
	c, err := safesocket.Dial(socket, 2*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	b, _ := json.Marshal(req)
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("send to the session daemon: %w", err)
	}
	line, err := bufio.NewReaderSize(c, 1<<20).ReadBytes('\n')
	if err != nil {
		if IsTimeout(err) {
			return nil, ErrNoAnswer{After: wait}
		}
		return nil, fmt.Errorf("read the session daemon's answer: %w", err)
	}
	var reply Reply
	if err := json.Unmarshal(line, &reply); err != nil {
		return nil, fmt.Errorf("the session daemon answered with something that is not its reply: %w", err)
	}
	return &reply, nil
}

func IsTimeout(err error) bool {
	te, ok := err.(interface{ Timeout() bool })
	return ok && te.Timeout()
}

// Config is the connection the spec describes.
func (s Spec) Config() (actors.Config, error) {
	era, err := wire.ParseEra(s.Protocol)
	if err != nil {
		return actors.Config{}, err
	}
	// Listing: a session's first life is listed whole, so the first
	// reconnect diffs against everything it offered.
	return actors.Config{Spec: wire.Spec{Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd}, URL: s.URL, Era: era,
		ConnectTimeout: time.Duration(s.ConnectTimeoutMS) * time.Millisecond, Listing: true}, nil
}
