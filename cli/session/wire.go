package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/predial"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// One request per socket connection, one JSON line each way. Closing the
// connection before the reply cancels the request (Ctrl-C on the client).

// Op is one operation of the fixed set the daemon answers.
type Op string

// The operations. Ping and close are the daemon's own; the others reach
// the target through the Handler.
const (
	OpPing          Op = "ping"
	OpClose         Op = "close"
	OpCall          Op = "call"
	OpListTools     Op = "list-tools"
	OpListResources Op = "list-resources"
	OpListPrompts   Op = "list-prompts"
	OpRead          Op = "read"
	OpGetPrompt     Op = "get-prompt"
	OpDescribe      Op = "describe"
	OpStderr        Op = "stderr"
	OpReconnect     Op = "reconnect"
	OpValidate      Op = "validate"
)

// Ops are the operations a Handler answers, in a stable order.
var handlerOps = []Op{OpCall, OpListTools, OpListResources, OpListPrompts, OpRead, OpGetPrompt, OpDescribe, OpStderr, OpReconnect, OpValidate}

// HandlerOps lists the operations a Handler must answer.
func HandlerOps() []Op { return append([]Op(nil), handlerOps...) }

func knownOp(op Op) bool {
	if op == OpPing || op == OpClose {
		return true
	}
	for _, o := range handlerOps {
		if o == op {
			return true
		}
	}
	return false
}

// Request is one typed request. Only the fields of its op are read.
type Request struct {
	Op      Op     `json:"op"`
	Session string `json:"session"` // the session the caller means; another is refused
	Tool    string `json:"tool,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	URI     string `json:"uri,omitempty"`
	// Args are the tool or prompt arguments, kept as raw JSON so numbers
	// stay exact (decoded with UseNumber, never through float64).
	Args json.RawMessage `json:"args,omitempty"`
	// Shorthand names the args written key=value: strings, unless the
	// tool's schema declares the property a number, integer or boolean.
	Shorthand []string `json:"shorthand,omitempty"`
	Count     int      `json:"count,omitempty"` // stderr: the last count lines (0: all)
	Deep      bool     `json:"deep,omitempty"`  // validate
	JSON      bool     `json:"json,omitempty"`  // validate
	// Cwd is the caller's directory: relative --out-dir is relative to it.
	Cwd     string  `json:"cwd,omitempty"`
	Options Options `json:"options"`
	// IdleMinutes sets the session's idle timeout (0 clears it).
	IdleMinutes *float64 `json:"idle_timeout,omitempty"`
	// Caller is what the call said about the server, for the mismatch
	// check; nil when it named neither a command, env nor a protocol.
	Caller *Caller `json:"caller,omitempty"`
}

// Options are the per-call options of a command.
type Options struct {
	Raw            bool   `json:"raw,omitempty"`
	ShowStderr     bool   `json:"show_stderr,omitempty"`
	TimeoutMS      int    `json:"timeout_ms,omitempty"`
	OutDir         string `json:"out_dir,omitempty"`
	MediaThreshold *int   `json:"media_threshold,omitempty"` // KB; nil: the default
	MaxText        int    `json:"max_text,omitempty"`        // 0: the default
	// RequestTimeoutMS is the budget of housekeeping requests (listings
	// before a call); 0: the session's own.
	RequestTimeoutMS int `json:"request_timeout_ms,omitempty"`
	// Debug is the caller's RUN_MCP_DEBUG=1: an internal error's reply
	// carries the stack where it arose.
	Debug bool `json:"debug,omitempty"`
	// Task calls the tool as a task (call --task).
	Task bool `json:"task,omitempty"`
}

// Caller describes the server a call names. Env values never travel: only
// their names and a hash.
type Caller struct {
	Target   string   `json:"target,omitempty"`  // the command line or URL; "": none given
	Command  string   `json:"command,omitempty"` // the executable as given (relative or not)
	Args     []string `json:"args,omitempty"`    // its arguments, to tell a relative command line
	HTTP     bool     `json:"http,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	EnvGiven bool     `json:"env_given,omitempty"`
	EnvKeys  []string `json:"env_keys,omitempty"`
	EnvHash  string   `json:"env_hash,omitempty"`
	// EnvHashes fingerprint each value alone (see Record.EnvHashes).
	EnvHashes map[string]string `json:"env_hashes,omitempty"`
	Protocol  string            `json:"protocol,omitempty"` // "": not given
}

// Reply is the daemon's answer: what the command printed and its exit code.
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
	Headers          map[string]string `json:"headers,omitempty"` // values: on stdin only, like env
	Protocol         string            `json:"protocol"`
	ConnectTimeoutMS int               `json:"connect_timeout_ms"`
	RequestTimeoutMS int               `json:"request_timeout_ms,omitempty"`
	IdleMinutes      float64           `json:"idle_timeout"`
}

// StartStatus is the daemon's first and only line on its status pipe.
type StartStatus struct {
	OK    bool   `json:"ok"`
	Code  int    `json:"code,omitempty"`
	Error string `json:"error,omitempty"`
	// Exit and Stderr are how a server that failed to start ended and
	// what it wrote, for --raw's error envelope.
	Exit   string   `json:"exit,omitempty"`
	Stderr []string `json:"stderr,omitempty"`
}

// Config is the connection the spec describes.
func (s Spec) Config() (actors.Config, error) {
	era, err := wire.ParseEra(s.Protocol)
	if err != nil {
		return actors.Config{}, err
	}
	// Listing: a session's first life is listed whole, so the first
	// reconnect diffs against everything it offered.
	return actors.Config{Spec: wire.Spec{Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd}, URL: s.URL, Headers: s.Headers, Era: era,
		ConnectTimeout: time.Duration(s.ConnectTimeoutMS) * time.Millisecond, RequestTimeout: time.Duration(s.RequestTimeoutMS) * time.Millisecond, Listing: true}, nil
}

// ErrNoAnswer is a daemon that took the request and never answered.
type ErrNoAnswer struct{ After time.Duration }

func (e ErrNoAnswer) Error() string { return fmt.Sprintf("no answer after %s", e.After) }

// ErrCannotReach is a daemon whose socket refused the connection.
type ErrCannotReach struct{ Err error }

func (e ErrCannotReach) Error() string { return fmt.Sprintf("cannot connect to its socket: %v", e.Err) }
func (e ErrCannotReach) Unwrap() error { return e.Err }

// Ask sends one request to the daemon at socket and waits up to wait for
// the reply. Cancelling ctx closes the connection, which cancels the
// request in the daemon; Ask then returns ctx's error.
func Ask(ctx context.Context, socket string, req Request, wait time.Duration) (*Reply, error) {
	return AskThen(ctx, socket, req, wait, nil)
}

// AskThen is Ask that calls sent, when not nil, once the request is on its
// way: what the caller does then overlaps the daemon's work on it.
func AskThen(ctx context.Context, socket string, req Request, wait time.Duration, sent func()) (*Reply, error) {
	c, err := Dial(socket)
	if err != nil {
		return nil, err
	}
	return c.Ask(ctx, req, wait, sent)
}

// dialWait bounds a dial that has to wait for the daemon (a busy named
// pipe on Windows; a Unix socket connects or fails at once).
const dialWait = 2 * time.Second

// Conn is a connection to a session daemon that carries one request. A
// client dials before its request is ready, so that the daemon wakes up
// (accepts) while the client prepares it. sent is the request line already
// written on it while run-mcp started (see predial.CallLine), or nil.
type Conn struct {
	c    net.Conn
	sent []byte
	at   time.Time // when sent went: its answer's wait runs from then
}

// Dial connects to the daemon at socket, or takes the connection to it
// dialled while run-mcp started (see internal/predial); an error is
// ErrCannotReach.
func Dial(socket string) (*Conn, error) {
	if c, sent, at := predial.Take(socket); c != nil { // dialled while run-mcp started
		return &Conn{c: c, sent: sent, at: at}, nil
	}
	c, err := safesocket.Dial(socket, dialWait)
	if err != nil {
		return nil, ErrCannotReach{Err: err}
	}
	return &Conn{c: c}, nil
}

// ErrEarlyDiffers is a request line sent while run-mcp started that is not
// the one the command line, read in full, makes. Its answer is not taken:
// hanging up cancels that call in the daemon.
type ErrEarlyDiffers struct{ Sent, Want []byte }

// Error names neither line: the arguments in them may be secrets.
func (e ErrEarlyDiffers) Error() string {
	return "the request sent while run-mcp started is not the one its command line makes"
}

// Close hangs up without a request (the daemon drops such a connection).
func (k *Conn) Close() error { return k.c.Close() }

// Ask sends req and waits up to wait for the reply, then closes the
// connection. Cancelling ctx closes it early, which cancels the request in
// the daemon; Ask then returns ctx's error. sent, when not nil, is called
// once the request is on its way.
func (k *Conn) Ask(ctx context.Context, req Request, wait time.Duration, sent func()) (*Reply, error) {
	c := k.c
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	b, err := req.appendJSON(make([]byte, 0, 512))
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	b = append(b, '\n')
	start := time.Now()
	if k.sent != nil && !k.at.IsZero() {
		start = k.at
	}
	_ = c.SetDeadline(start.Add(wait))
	switch {
	case k.sent == nil:
		if _, err := c.Write(b); err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("send to the session daemon: %w", err)
		}
	case !bytes.Equal(k.sent, b): // the call on its way is not this one
		return nil, ErrEarlyDiffers{Sent: k.sent, Want: b}
	}
	if sent != nil {
		sent()
	}
	line, err := ReadLine(bufio.NewReader(c), MaxReply)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case IsTimeout(err):
			return nil, ErrNoAnswer{After: wait}
		}
		return nil, fmt.Errorf("read the session daemon's answer: %w", err)
	}
	reply, err := decodeReply(line)
	if err != nil {
		return nil, fmt.Errorf("the session daemon answered with something that is not its reply: %w", err)
	}
	return reply, nil
}

// IsTimeout says whether err is a deadline that passed.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
