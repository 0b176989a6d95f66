package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// One request per socket connection, one JSON line each way.

type daemonRequest struct {
	Op          string   `json:"op"` // run, ping, close
	Argv        []string `json:"argv,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	IdleMinutes *float64 `json:"idle_timeout,omitempty"`
}

type daemonReply struct {
	Code   int          `json:"code"`
	Stdout string       `json:"stdout,omitempty"`
	Stderr string       `json:"stderr,omitempty"`
	Info   *sessionInfo `json:"info,omitempty"`
}

// sessionInfo is what a ping learns about a running session.
type sessionInfo struct {
	Pid         int     `json:"pid"`
	Phase       string  `json:"phase"`
	UptimeMS    int64   `json:"uptime_ms"`
	IdleMinutes float64 `json:"idle_timeout"`
	DaemonPid   int     `json:"daemon_pid"`
}

// daemonSpec is what the client hands a new daemon on its stdin: env values
// travel there, never on a command line another user could read.
type daemonSpec struct {
	Name             string            `json:"name"`
	Command          string            `json:"command"`
	Args             []string          `json:"args"`
	Env              map[string]string `json:"env"`
	Cwd              string            `json:"cwd"`
	URL              string            `json:"url"`
	Protocol         string            `json:"protocol"`
	ConnectTimeoutMS int               `json:"connect_timeout_ms"`
	RequestTimeoutMS int               `json:"request_timeout_ms,omitempty"`
	IdleMinutes      float64           `json:"idle_timeout"`
}

// startStatus is the daemon's first and only line on its status pipe.
type startStatus struct {
	OK    bool   `json:"ok"`
	Code  int    `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
}

// errNoAnswer is a daemon that took the request and never answered.
type errNoAnswer struct{ after time.Duration }

func (e errNoAnswer) Error() string { return fmt.Sprintf("no answer after %s", e.after) }

// ask sends one request to the daemon at socket and waits up to wait for
// the reply.
func ask(socket string, req daemonRequest, wait time.Duration) (*daemonReply, error) {
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
		if isTimeout(err) {
			return nil, errNoAnswer{after: wait}
		}
		return nil, fmt.Errorf("read the session daemon's answer: %w", err)
	}
	var reply daemonReply
	if err := json.Unmarshal(line, &reply); err != nil {
		return nil, fmt.Errorf("the session daemon answered with something that is not its reply: %w", err)
	}
	return &reply, nil
}

func isTimeout(err error) bool {
	te, ok := err.(interface{ Timeout() bool })
	return ok && te.Timeout()
}
