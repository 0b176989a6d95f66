package session

import (
	"encoding/json"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// One request per socket connection, one JSON line each way (encoding/json
// on these types, both ways). Closing the connection before the reply
// cancels the request (Ctrl-C on the client).

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
	// Started says the command sending this request started the session
	// just before: a reconnect then reports the server it started rather
	// than restart it at once.
	Started bool `json:"started,omitempty"`
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
	// HeadersGiven says the call names HTTP headers; HeaderHashes
	// fingerprint each value alone, by name (values never travel here).
	HeadersGiven bool              `json:"headers_given,omitempty"`
	HeaderHashes map[string]string `json:"header_hashes,omitempty"`
	Protocol     string            `json:"protocol,omitempty"` // "": not given
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
	// Pid is the server's process while it is live (0: none runs, after a
	// failed reconnect, or an HTTP target).
	Pid   int    `json:"pid"`
	Phase string `json:"phase"`
	// Protocol is the revision the server negotiated ("" while none is
	// connected).
	Protocol    string  `json:"protocol,omitempty"`
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
	OAuth            oauth.Options     `json:"oauth,omitzero"` // an HTTP target's client; its secret on stdin only, like env
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
	return actors.Config{Spec: wire.Spec{Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd}, URL: s.URL, Headers: s.Headers, OAuth: s.OAuth, Era: era,
		ConnectTimeout: time.Duration(s.ConnectTimeoutMS) * time.Millisecond, RequestTimeout: time.Duration(s.RequestTimeoutMS) * time.Millisecond, Listing: true}, nil
}
