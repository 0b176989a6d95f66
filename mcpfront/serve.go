package mcpfront

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/internal/spinread"
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
	// CPUs is how many CPUs the Go runtime had to run on before the agent
	// server held it to one P (see cli's agent command); readers try a pipe
	// on which a message is due only with two or more (spinread). 0: none.
	CPUs int
}

// DefaultTimeout is the default server-time budget of a call.
const DefaultTimeout = actors.DefaultCallTimeout

// agentWords name the agent server's parameters in timeout messages.
var agentWords = actors.Words{RequestTimeout: "request_timeout_ms of connect_to_mcp, reconnect_to_mcp or validate_mcp_server",
	CallTimeout: "timeout_ms", Stderr: "get_mcp_server_stderr shows all of it"}

type front struct {
	opts  Options
	era   wire.Era
	reg   *actors.Registry
	ic    *intercept.Interceptor
	host  *hostBridge
	out   *lockedWriter
	errw  io.Writer
	logMu sync.Mutex
	// spin is the process's one budget for trying a pipe on which a message
	// is due (spinread): stdin's reader and the targets' share it.
	spin *spinread.Budget
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
	srv := server.NewMCPServer("run-mcp", opts.Version, server.WithToolCapabilities(false), server.WithLogging(),
		server.WithInstructions(instructions), server.WithHooks(f.hooks()))
	f.host.srv = srv
	if err := f.register(srv); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		f.relayStderr(ctx)
	}()
	session := newHostSession(f.out)
	f.host.setSession(session)
	hio := &hostIO{srv: srv, out: f.out, session: session, logf: f.logf, tools: f.toolNames(), expect: f.expect, fast: f.fastHandler(), express: f.express}
	if file, ok := in.(*os.File); ok {
		hio.stdin = spinread.New(file, f.spin)
		in = hio.stdin
	}
	err = hio.serve(ctx, in)
	cancel()
	<-relayDone
	f.host.parks.closeAll(errors.New("the host closed the connection"))
	f.reg.Close()
	f.host.parks.wait()
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
	f := &front{opts: opts, era: era, ic: ic, out: &lockedWriter{w: out}, errw: errw, spin: spinread.NewBudget(opts.CPUs)}
	f.host = &hostBridge{out: f.out}
	logger := slog.New(slog.NewTextHandler(&prefixWriter{f: f}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	f.reg = actors.NewRegistry(actors.Options{MaxConnections: opts.MaxConnections, IdleTimeout: opts.IdleTimeout, Host: f.host, Logger: logger,
		ClientInfo: mcp.Implementation{Name: "run-mcp", Version: opts.Version}, RequestTimeout: opts.RequestTimeout, Words: agentWords, Spin: f.spin})
	return f, nil
}

// expect announces the connects and reconnects read from the host, so the
// requests read after them wait for them (Registry.Expect).
func (f *front) expect(tool, conn string) (done func()) {
	switch tool {
	case "connect_to_mcp":
		return f.reg.Expect(conn)
	case "reconnect_to_mcp":
		return f.reg.ExpectReconnect(conn)
	}
	return func() {}
}

func (f *front) hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddBeforeAny(func(ctx context.Context, _ any, _ mcp.MCPMethod, _ any) {
		if server.IsModernRequest(ctx) {
			f.host.markModern()
		}
	})
	h.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		f.host.setCaps(req.Params.Capabilities)
		if s := server.ClientSessionFromContext(ctx); s != nil {
			f.host.setSession(s)
		}
	})
	return h
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

const instructions = `run-mcp runs the MCP server you are building and shows you the process: connect_to_mcp to spawn it, call_mcp_primitive to call it, reconnect_to_mcp after every edit to see what changed, get_mcp_server_stderr and mcp_server_status to see why it broke.`
