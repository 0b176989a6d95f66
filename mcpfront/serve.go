package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/wire"
)

// Options configure the agent server (the root command's flags).
type Options struct {
	OutDir  string
	Timeout time.Duration
	// RequestTimeout is the housekeeping budget of connections whose
	// connect_to_mcp gives no request_timeout_ms (0: actors' default).
	RequestTimeout time.Duration
	MaxText        int
	MediaKB        int
	Scan           bool
	Protocol       string
	MaxConnections int
	IdleTimeout    time.Duration
	Version        string
}

// DefaultTimeout is the default server-time budget of a call.
const DefaultTimeout = actors.DefaultCallTimeout

// agentWords name the agent server's parameters in timeout messages.
var agentWords = actors.Words{RequestTimeout: "request_timeout_ms of connect_to_mcp, reconnect_to_mcp or validate_mcp_server",
	CallTimeout: "timeout_ms", Stderr: "get_mcp_server_stderr shows all of it"}

// front is the agent server: the host's session, the engine, and what is in
// flight between them.
type front struct {
	opts  Options
	era   wire.Era
	reg   *actors.Registry
	ic    *intercept.Interceptor
	host  *hostSession
	out   *lockedWriter
	errw  io.Writer
	logMu sync.Mutex

	defs      []toolDef
	toolsList json.RawMessage

	mu       sync.Mutex
	inflight map[string]*request
	parks    parks
	// events carries the progress and the end of every call_mcp_primitive
	// in flight from the engine to consume.
	events   chan actors.CallEvent
	consumed chan struct{}
	handlers sync.WaitGroup
	// looks are the last get_mcp_server_stderr replies, so stdout noise
	// already shown is not shown again to the cursor they handed out.
	looks stderrLooks
}

// Serve runs the agent server on in/out until the host closes in, ctx ends
// (SIGINT/SIGTERM) or the host dies; then every target is stopped.
func Serve(ctx context.Context, opts Options, in io.Reader, out, errw io.Writer) error {
	f, err := newFront(opts, out, errw)
	if err != nil {
		return err
	}
	if n, err := intercept.Prune(f.ic.OutDir(), intercept.PruneAge, time.Now()); err == nil && n > 0 {
		f.logf("pruned %d saved file(s) older than 7 days from %s", n, f.ic.OutDir())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		f.relayStderr(ctx)
	}()
	go f.consume()
	// The read blocks on stdin, which a signal cannot interrupt; on a signal
	// Serve returns and leaves the reader to end with the process.
	read := make(chan error, 1)
	go func() { read <- f.readLoop(ctx, in) }()
	select {
	case err = <-read:
	case <-ctx.Done():
	}
	cancel()
	<-relayDone
	gone := errors.New("the host closed the connection")
	f.host.close(gone)
	f.cancelAll()
	f.reg.Close()
	f.handlers.Wait()
	close(f.events)
	<-f.consumed
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve stdio: %w", err)
	}
	return nil
}

func newFront(opts Options, out, errw io.Writer) (*front, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = actors.DefaultRequestTimeout
	}
	era, err := wire.ParseEra(opts.Protocol)
	if err != nil {
		return nil, err
	}
	ic, err := intercept.New(intercept.Options{OutDir: opts.OutDir, MaxText: opts.MaxText, MediaThresholdKB: opts.MediaKB})
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	f := &front{opts: opts, era: era, ic: ic, out: &lockedWriter{w: out}, errw: errw, inflight: map[string]*request{},
		events: make(chan actors.CallEvent, 1024), consumed: make(chan struct{})}
	f.host = newHostSession(f.out)
	f.defs = f.toolDefs()
	if f.toolsList, err = f.listTools(); err != nil {
		return nil, fmt.Errorf("encode the tool list: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(&prefixWriter{f: f}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f.reg = actors.NewRegistry(actors.Options{MaxConnections: opts.MaxConnections, IdleTimeout: opts.IdleTimeout, Host: f, Logger: logger,
		ClientInfo: mcp.Implementation{Name: "run-mcp", Version: opts.Version}, RequestTimeout: opts.RequestTimeout, Words: agentWords})
	return f, nil
}

// logf writes an operator line to stderr, prefixed so it is never mistaken
// for the target's own output.
func (f *front) logf(format string, args ...any) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	fmt.Fprintf(f.errw, "run-mcp: "+format+"\n", args...)
}

type prefixWriter struct{ f *front }

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.f.logf("%s", trimNL(string(b)))
	return len(b), nil
}

func trimNL(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

// requestKey carries the host request a handler serves, so it can say what
// this host declared (a 2026-07-28 host declares on every request).
type requestKey struct{}

func withRequest(ctx context.Context, r *request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// hostCaps is what the host declared, as the request under ctx says.
func (f *front) hostCaps(ctx context.Context) actors.HostCaps {
	if r, ok := ctx.Value(requestKey{}).(*request); ok && r.modern {
		return capsOf(r.caps)
	}
	return f.Caps()
}

// withResultType inserts "resultType" as the first member of a result
// object that has none, without re-encoding anything else.
func withResultType(raw json.RawMessage, resultType string) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return raw
	}
	if _, ok := members["resultType"]; ok {
		return raw
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	value, _ := json.Marshal(resultType)
	out := make([]byte, 0, len(raw)+len(value)+16)
	out = append(out, `{"resultType":`...)
	out = append(out, value...)
	if len(members) > 0 {
		out = append(out, ',')
	}
	return append(out, trimmed[1:]...)
}

const instructions = `run-mcp runs the MCP server you are building and shows you the process: connect_to_mcp to spawn it, call_mcp_primitive to call it, reconnect_to_mcp after every edit to see what changed, get_mcp_server_stderr and mcp_server_status to see why it broke.`
