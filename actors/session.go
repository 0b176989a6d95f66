package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// lateStderr is how long a failure report waits for a dying server's last
// words before it is written.
const lateStderr = time.Second

// session is one life of a target: one process (or HTTP session), one client.
type session struct {
	cfg      Config
	proc     *wire.Process // nil over HTTP
	wt       *wire.Transport
	tr       transport.Interface
	client   *client.Client
	evidence *wire.Evidence
	init     *mcp.InitializeResult
	started  time.Time
	cancel   context.CancelFunc // releases handlers of the target's requests
	reqSeq   atomic.Int64
	streams  streams
	tasks    taskTable     // the tasks this life's calls created
	stopped  chan struct{} // closed by stop, so watchers of this life end
	stopOnce sync.Once
	// stopGrace is how long stop waits after closing the target's stdin
	// before SIGTERM.
	stopGrace time.Duration
}

// Info describes a live connection.
type Info struct {
	Name            string                 `json:"name"`
	Pid             int                    `json:"pid,omitempty"`
	Target          string                 `json:"target"`
	Transport       string                 `json:"transport"`
	ProtocolVersion string                 `json:"protocol_version"`
	Era             string                 `json:"era"`
	EraMode         string                 `json:"era_mode"`
	ServerInfo      mcp.Implementation     `json:"server_info"`
	Capabilities    mcp.ServerCapabilities `json:"capabilities"`
	Instructions    string                 `json:"instructions,omitempty"`
	Listing         snapshot.Listing       `json:"-"`
	ConnectedAt     time.Time              `json:"connected_at"`
	Roots           []mcp.Root             `json:"-"`
	Noise           wire.EvidenceSnapshot  `json:"-"`
	// Listen is the stream opened at connect on a 2026-07-28 connection for
	// the list_changed kinds the server advertises (nil: none asked).
	Listen *Stream `json:"-"`
}

func (s *session) info(name string) Info {
	in := Info{Name: name, Target: s.cfg.Target(), Transport: "stdio", EraMode: s.cfg.Era.String(),
		ConnectedAt: s.started, Roots: s.cfg.Roots}
	if s.proc != nil {
		in.Pid = s.proc.Pid()
	} else {
		in.Transport = "streamable-http"
	}
	if s.init != nil {
		in.ProtocolVersion = s.init.ProtocolVersion
		in.Era = wire.EraOf(s.init.ProtocolVersion)
		in.ServerInfo = s.init.ServerInfo
		in.Capabilities = s.init.Capabilities
		in.Instructions = s.init.Instructions
	}
	if s.evidence != nil {
		in.Noise = s.evidence.Snapshot()
	}
	return in
}

// open starts a target and completes the handshake. On failure everything it
// started is stopped and the error carries the evidence.
func (c *Conn) open(ctx context.Context, cfg Config, handler transport.RequestHandler) (*session, error) {
	s := &session{cfg: cfg, evidence: &wire.Evidence{}, stopped: make(chan struct{}), stopGrace: wire.StdinGrace}
	if c.env.signalAtOnce {
		s.stopGrace = 0
	}
	// Legacy over HTTP listens on the standalone GET stream from the start;
	// auto and a pin learn the era first (the modern era has no GET stream).
	if err := s.startTransport(c.env.spawner, c.stderr, cfg.Era.Mode == wire.EraLegacy); err != nil {
		return nil, err
	}
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	hsCtx, hsCancel := context.WithTimeout(ctx, timeout)
	defer hsCancel()
	if s.wt != nil {
		// The probe needs stdout read. (Over HTTP, Start opens the GET
		// stream, so it waits for the client: twice would open two.)
		_ = s.wt.Start(hctx)
	}
	negotiated, err := wire.Negotiate(hsCtx, s.tr, cfg.Era, c.env.clientInfo, advertised())
	if err != nil {
		return nil, c.handshakeFailed(ctx, s, hsCtx, timeout, err)
	}
	if cfg.IsHTTP() && negotiated.Legacy() && cfg.Era.Mode != wire.EraLegacy {
		// The probe's transport cannot open the GET stream; a legacy
		// connection gets a fresh one that does.
		_ = s.tr.Close()
		if err := s.startTransport(c.env.spawner, c.stderr, true); err != nil {
			return nil, err
		}
	}
	h := inputHandlers{c: c}
	opts := append(negotiated.ClientOptions(), client.WithClientCapabilities(advertised()),
		client.WithElicitationHandler(h), client.WithSamplingHandler(h), client.WithRootsHandler(h))
	s.client = client.NewClient(s.tr, opts...)
	if err := s.client.Start(hctx); err != nil {
		return nil, c.failOpen(s, "could not start the client: "+err.Error(), err)
	}
	if bidi, ok := s.tr.(transport.BidirectionalInterface); ok {
		if cfg.IsHTTP() {
			handler = detachedHandler(hctx, handler) // httpinput.go
		}
		bidi.SetRequestHandler(handler)
	}
	s.client.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationToolsListChanged):
			c.tools.Store(nil) // the next call re-lists before checking names
		case mcp.MethodNotificationSubscriptionsAcknowledged:
			s.streams.onAck(n)
		case mcp.MethodNotificationTasksStatus:
			s.tasks.onStatus(n)
		}
		c.notes.add(n, time.Now())
		c.env.host.Notify(c.name, n)
	})
	init, err := wire.Handshake(hsCtx, s.client, cfg.Era, negotiated, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: c.env.clientInfo}})
	if err != nil {
		return nil, c.handshakeFailed(ctx, s, hsCtx, timeout, err)
	}
	s.init = init
	s.started = time.Now()
	if s.wt != nil && mcp.IsModernProtocol(init.ProtocolVersion) {
		s.wt.SetModern(true)
	}
	if cfg.LogLevel != "" {
		err := c.request(ctx, s, string(mcp.MethodSetLogLevel), func(ctx context.Context) error {
			return s.client.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: cfg.LogLevel}})
		})
		if err != nil {
			c.env.log.Warn("the server refused the log level", "connection", c.name, "level", cfg.LogLevel, "err", err)
		}
	}
	return s, nil
}

// advertised is what run-mcp declares to every target: elicitation (forms
// and URLs), sampling and roots, so the server's client-facing paths can be
// exercised; what really answers is decided per request.
func advertised() mcp.ClientCapabilities {
	caps := mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	return caps
}

// startTransport opens the channel to the target. listen opens the
// standalone GET stream of a legacy HTTP session, on which a server sends
// the requests and notifications that belong to no request (elicitation,
// list_changed, logging).
func (s *session) startTransport(spawner *wire.Spawner, ring *wire.Ring, listen bool) error {
	if s.cfg.IsHTTP() {
		// mcp-go logs the GET stream's retries; they are not the user's business.
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPLogger(slog.New(slog.DiscardHandler)),
			transport.WithHTTPBasicClient(&http.Client{Transport: answerPoster{next: http.DefaultTransport}})}
		if listen {
			opts = append(opts, transport.WithContinuousListening())
		}
		if len(s.cfg.Headers) > 0 {
			opts = append(opts, transport.WithHTTPHeaders(s.cfg.Headers))
		}
		tr, err := transport.NewStreamableHTTP(s.cfg.URL, opts...)
		if err != nil {
			return &ConnectError{Reason: fmt.Sprintf("bad URL %s: %v", s.cfg.URL, err), Err: err,
				Report: ProcessReport{Command: s.cfg.URL, NoProcess: true}}
		}
		s.tr = capturingHTTP{tr}
		return nil
	}
	if err := checkDir(s.cfg.Spec.Dir); err != nil {
		return &ConnectError{Reason: err.Error(), Err: err,
			Report: ProcessReport{Command: s.cfg.Spec.CommandLine(), NoProcess: true}}
	}
	proc, err := wire.StartInto(spawner, s.cfg.Spec, ring)
	if err != nil {
		var nf *wire.CommandNotFoundError
		return &ConnectError{Reason: err.Error(), Err: err, NotFound: errors.As(err, &nf),
			Report: ProcessReport{Command: s.cfg.Spec.CommandLine(), NoProcess: true}}
	}
	s.proc = proc
	s.wt = wire.NewTransport(proc.Stdout(), proc.Stdin(), s.evidence)
	s.tr = capturingStdio{s.wt}
	return nil
}

func (c *Conn) handshakeFailed(ctx context.Context, s *session, hsCtx context.Context, timeout time.Duration, err error) error {
	if errors.Is(hsCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		reason := fmt.Sprintf("the server did not complete the MCP handshake within %s", fmtDur(timeout))
		ce := c.failOpen(s, reason, err)
		ce.Diagnosis = "It started but never answered initialize. It may be waiting on a database, a port or stdin, " +
			"or writing its protocol to the wrong stream (stderr instead of stdout). It was torn down. " +
			"If it is slow but healthy, raise connect_timeout_ms (--connect-timeout from a shell)."
		return ce
	}
	if ctx.Err() != nil {
		return c.failOpen(s, "cancelled by the client before the handshake completed", err)
	}
	ce := c.failOpen(s, reasonOf(err), err)
	if s.cfg.IsHTTP() {
		ce.Diagnosis = "Check that the server is listening at that URL and speaks Streamable HTTP. " +
			"The deprecated HTTP+SSE transport (often a URL ending in /sse) is not supported; use the server's Streamable HTTP endpoint (often /mcp)."
	}
	return ce
}

// checkDir names a working directory that cannot be one; without it the
// spawn fails as "fork/exec /usr/bin/node: no such file or directory", which
// blames the command.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	info, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the working directory %s does not exist (cwd); nothing was started. Pass an existing directory as cwd, or leave cwd out to use run-mcp's", dir)
	case err != nil:
		return fmt.Errorf("the working directory %s cannot be used (cwd): %w; nothing was started", dir, err)
	case !info.IsDir():
		return fmt.Errorf("the working directory %s is not a directory (cwd); nothing was started. Pass the directory that holds the server", dir)
	}
	return nil
}

// reasonOf gives the short reason of a failure: "Connection closed" when the
// server went away, else the error's own text.
func reasonOf(err error) string {
	var rt *RequestTimeoutError
	if errors.As(err, &rt) {
		return rt.Summary()
	}
	var closed *wire.ClosedError
	if errors.As(err, &closed) && !errors.Is(err, syscall.EPIPE) {
		return closed.Error()
	}
	// A broken pipe on the server's stdin is the server gone away, as EOF on
	// its stdout is: the same words, whichever the client noticed first.
	if errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) {
		return "Connection closed"
	}
	return err.Error()
}

// failOpen tears a half-open session down and builds the report: the stderr
// from the moment it started, how the process ended, and stdout noise.
func (c *Conn) failOpen(s *session, reason string, err error) *ConnectError {
	ce := &ConnectError{Reason: reason, Err: err, Report: ProcessReport{Command: s.cfg.Target()}}
	// A broken pipe on its stdin, like EOF on its stdout, is a server that
	// closed its end and is exiting by itself: stopping it at once would
	// race its exit and report it "stopped by run-mcp".
	if s.proc != nil && (s.closing() || errors.Is(err, syscall.EPIPE)) {
		// A server that is dying writes its last words now: wait for them.
		select {
		case <-s.proc.Done():
		case <-time.After(lateStderr):
		}
		if !diedByItself(s.proc) && !tooLarge(s.wt.Err()) {
			ce.Reason = stdoutClosed(s.proc.Pid()) + " (" + reason + "); run-mcp stopped it"
		}
	}
	s.stop()
	ce.Report = s.report(0)
	if s.proc != nil {
		ce.ring = s.proc.Stderr()
	}
	return ce
}

// closing says the server closed its stdout by itself (EOF): it is exiting,
// so its exit and last stderr lines are worth a moment's wait. A server that
// is still running (a handshake timeout, an oversized message) is stopped at
// once instead.
func (s *session) closing() bool {
	if s.wt == nil {
		return false
	}
	select {
	case <-s.proc.Exited():
		return true
	default:
	}
	err := s.wt.Err()
	return err != nil && errors.Is(err, io.EOF)
}

// report is the evidence of this session's process; stderrSince limits the
// stderr to what came after a cursor (0: all this process wrote, cut to its
// first and last failureStderrLines/2; never an earlier process's lines).
func (s *session) report(stderrSince int) ProcessReport {
	r := ProcessReport{Command: s.cfg.Target()}
	if s.proc == nil {
		r.NoProcess = true
		return r
	}
	if e, ok := s.proc.Exit(); ok {
		r.Exit, r.ExitRaw = e.Sentence(), &e
	}
	ex := s.proc.Stderr().Since(max(stderrSince, s.proc.StderrBase())).Trim(failureStderrLines/2, failureStderrLines/2)
	r.Stderr = ex.Render(true)
	r.Noise = s.evidence.Snapshot().Noise
	return r
}

// stop ends the session: the handlers of the target's requests are released,
// the client closed, the process stopped and every goroutine waited for.
func (s *session) stop() {
	defer s.stopOnce.Do(func() { close(s.stopped) })
	s.stopStreams()
	if s.cancel != nil {
		s.cancel()
	}
	if s.client != nil {
		_ = s.client.Close()
	} else if s.tr != nil {
		_ = s.tr.Close()
	}
	if s.proc != nil {
		s.proc.StopAfter(s.stopGrace)
	}
	if s.wt != nil {
		s.wt.Wait()
	}
}

// listing lists what the server offers, per capability it declared: each
// entry as the server sent it, and typed for run-mcp's own checks. Each
// request is bounded by the housekeeping budget.
func (c *Conn) listing(ctx context.Context, s *session) (snapshot.Listing, error) {
	var l snapshot.Listing
	caps := s.init.Capabilities
	if caps.Tools != nil {
		tools, raw, err := c.listTools(ctx, s)
		if err != nil {
			return l, err
		}
		l.Tools, l.Raw.Tools, l.Has.Tools = tools, raw, true
	}
	if caps.Resources != nil {
		res, raw, err := listRaw(ctx, c, s, "resources", string(mcp.MethodResourcesList), func(ctx context.Context) (*mcp.ListResourcesResult, error) {
			return s.client.ListResources(ctx, mcp.ListResourcesRequest{})
		})
		if err != nil {
			return l, err
		}
		l.Resources, l.Raw.Resources, l.Has.Resources = res.Resources, raw, true
		tres, traw, err := listRaw(ctx, c, s, "resourceTemplates", string(mcp.MethodResourcesTemplatesList), func(ctx context.Context) (*mcp.ListResourceTemplatesResult, error) {
			return s.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		})
		if err == nil {
			l.Templates, l.Raw.Templates, l.Has.Templates = tres.ResourceTemplates, traw, true
		}
	}
	if caps.Prompts != nil {
		res, raw, err := listRaw(ctx, c, s, "prompts", string(mcp.MethodPromptsList), func(ctx context.Context) (*mcp.ListPromptsResult, error) {
			return s.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		})
		if err != nil {
			return l, err
		}
		l.Prompts, l.Raw.Prompts, l.Has.Prompts = res.Prompts, raw, true
	}
	return l, nil
}

func (c *Conn) listTools(ctx context.Context, s *session) ([]mcp.Tool, []json.RawMessage, error) {
	res, raw, err := listRaw(ctx, c, s, "tools", string(mcp.MethodToolsList), func(ctx context.Context) (*mcp.ListToolsResult, error) {
		return s.client.ListTools(ctx, mcp.ListToolsRequest{})
	})
	if err != nil {
		return nil, nil, err
	}
	return res.Tools, raw, nil
}

// listRaw lists one kind through the client, which follows the cursors,
// within the housekeeping budget, and returns beside its typed result the
// entries of every page as the server sent them (field is the key of the
// entries in a page).
func listRaw[T any](ctx context.Context, c *Conn, s *session, field, method string, list func(context.Context) (T, error)) (T, []json.RawMessage, error) {
	cctx, pages := withCapture(ctx)
	var v T
	err := c.request(cctx, s, method, func(ctx context.Context) (err error) {
		v, err = list(ctx)
		return err
	})
	if err != nil {
		return v, nil, wrapMethod(method, err)
	}
	raw := []json.RawMessage{}
	for _, page := range pages.all() {
		items, err := snapshot.Items(page, field)
		if err != nil {
			return v, nil, fmt.Errorf("read the %s the server sent: %w", field, err)
		}
		raw = append(raw, items...)
	}
	return v, raw, nil
}

// wrapMethod prefixes the method a failure came from, unless the error
// already names it (a timeout does).
func wrapMethod(method string, err error) error {
	var rt *RequestTimeoutError
	if errors.As(err, &rt) {
		return err
	}
	return fmt.Errorf("%s: %w", method, err)
}
