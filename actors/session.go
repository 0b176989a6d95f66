package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// lateStderr is how long a failure report waits for a dying server's last
// words before it is written.
const lateStderr = time.Second

// session is one life of a target: one process (or HTTP session) and the
// channel to it. The actor owns it; only the fields set before it is
// attached (cfg, proc, ch, in, http) are read by other goroutines.
type session struct {
	cfg  Config
	proc *wire.Process // nil over HTTP
	ch   wire.Channel
	http *wire.HTTP // ch, when the target is reached over HTTP
	in   chan wire.Inbound
	// auth authorizes an HTTP target (nil: it does not); the connection's,
	// shared by its lives.
	auth *oauth.Client

	evidence wire.Evidence
	// protocol is the revision the handshake settled ("" until then);
	// modern says it is of the 2026-07-28 era.
	protocol    string
	modern      bool
	init        *mcp.InitializeResult
	negotiation string // how the era was settled, for replies
	started     time.Time
	streams     map[string]*stream
	tasks       taskTable
	// channelEnded: the channel's last Inbound has arrived; chanErr is why.
	channelEnded bool
	chanErr      error
	retired      bool // replaced or stopped: nothing of it is reported any more
	// stderrBase is where this process's lines begin in the connection's
	// ring; stderrDone says its feed reached the pipe's end.
	stderrBase int
	stderrDone bool
	// launcher says the process run-mcp started exited while what it
	// started still serves the channel.
	launcher string
	// redirects are the distinct HTTP redirects this life followed (every
	// request to a moved endpoint is redirected again), at most
	// maxRedirectsKept of them.
	redirects []wire.Redirect
	stopped   chan struct{}
	// stopGrace is how long stop waits after closing the target's stdin
	// before SIGTERM.
	stopGrace time.Duration
}

func newSession(cfg Config, grace time.Duration) *session {
	return &session{cfg: cfg, in: make(chan wire.Inbound, 64), stopped: make(chan struct{}), stopGrace: grace, streams: map[string]*stream{}}
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
	// Negotiation says how the era was settled (auto and pinned modes).
	Negotiation string                `json:"negotiation,omitempty"`
	Listing     snapshot.Listing      `json:"-"`
	ConnectedAt time.Time             `json:"connected_at"`
	Roots       []mcp.Root            `json:"-"`
	Noise       wire.EvidenceSnapshot `json:"-"`
	// Listen is the stream opened at connect on a 2026-07-28 connection for
	// the list_changed kinds the server advertises (nil: none asked).
	Listen *Stream `json:"-"`
}

func (s *session) info(name string) Info {
	in := Info{Name: name, Target: s.cfg.Target(), Transport: "stdio", EraMode: s.cfg.Era.String(),
		ConnectedAt: s.started, Roots: s.cfg.Roots, Negotiation: s.negotiation}
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
	in.Noise = s.evidence.Snapshot()
	return in
}

// start opens the channel to the target: spawns its process or reaches its
// URL. It runs off the actor.
func (s *session) start(spawner *wire.Spawner) error {
	if s.cfg.IsHTTP() {
		opts := wire.HTTPOptions{URL: s.cfg.URL, Headers: s.cfg.Headers}
		if s.auth != nil {
			opts.RoundTripper = s.auth.Transport(wire.DefaultHTTPTransport())
		}
		h, err := wire.NewHTTP(opts, s.in)
		if err != nil {
			return &ConnectError{Reason: fmt.Sprintf("bad URL %s: %v", s.cfg.URL, err), Err: err,
				Report: ProcessReport{Command: s.cfg.URL, NoProcess: true}}
		}
		s.ch, s.http = h, h
		return nil
	}
	if err := checkDir(s.cfg.Spec.Dir); err != nil {
		return &ConnectError{Reason: err.Error(), Err: err, Report: ProcessReport{Command: s.cfg.Spec.CommandLine(), NoProcess: true}}
	}
	proc, err := wire.Start(spawner, s.cfg.Spec)
	if err != nil {
		var nf *wire.CommandNotFoundError
		return &ConnectError{Reason: err.Error(), Err: err, NotFound: errors.As(err, &nf),
			Report: ProcessReport{Command: s.cfg.Spec.CommandLine(), NoProcess: true}}
	}
	s.proc = proc
	s.ch = wire.NewStdio(proc.Stdout(), proc.Stdin(), s.in)
	return nil
}

// meta is the _meta of a request on s: on a 2026-07-28 connection every
// request carries the revision, the client's capabilities and identity
// (and the log level the connection asks for); extra adds to it.
func (s *session) meta(info mcp.Implementation, extra map[string]any) map[string]any {
	if !s.modern {
		return extra
	}
	m := map[string]any{mcp.MetaKeyProtocolVersion: s.protocol, mcp.MetaKeyClientCapabilities: advertised(), mcp.MetaKeyClientInfo: info}
	if s.cfg.LogLevel != "" {
		m[mcp.MetaKeyLogLevel] = s.cfg.LogLevel
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// withMeta sets params' _meta to s's, when it has one.
func (s *session) withMeta(info mcp.Implementation, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	var extra map[string]any
	if m, ok := params["_meta"].(map[string]any); ok {
		extra = m
	}
	if m := s.meta(info, extra); m != nil {
		params["_meta"] = m
	}
	return params
}

// advertised is what run-mcp declares to every target: elicitation (forms
// and URLs), sampling and roots, so the server's client-facing paths can be
// exercised; what really answers is decided per request.
//
// It is mcp.ClientCapabilities as encoding/json writes it, written out:
// the initialize request carries it, and encoding/json builds the encoder
// of that type, and of every capability type it holds, by reflection on
// first use, which every one-shot command's handshake paid before its
// first request could leave. A test holds it to the typed value's encoding.
func advertised() json.RawMessage {
	return json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}`)
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
		return fmt.Errorf("the working directory %s does not exist (cwd), so nothing was started. Pass an existing directory as cwd, or leave cwd out to start the server in run-mcp's own working directory", dir)
	case err != nil:
		return fmt.Errorf("the working directory %s cannot be used (cwd): %w, so nothing was started. Check its permissions, or pass another directory as cwd", dir, err)
	case !info.IsDir():
		return fmt.Errorf("the working directory %s is not a directory (cwd), so nothing was started. Pass the directory that holds the server as cwd", dir)
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
	// its stdout is: the same words, whichever was noticed first.
	if errors.Is(err, syscall.EPIPE) {
		return "Connection closed"
	}
	return err.Error()
}

// closing says the server closed its stdout by itself (EOF): it is exiting,
// so its exit and last stderr lines are worth a moment's wait. A server that
// is still running (a handshake timeout, an oversized message) is stopped at
// once instead. It reads what the actor recorded; call it on the actor or
// once the session is retired.
func (s *session) closing() bool {
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.Exited():
		return true
	default:
	}
	return s.channelEnded && (s.chanErr == nil || errors.Is(s.chanErr, io.EOF))
}

// report is the evidence of this session's process; stderrSince limits the
// stderr to what came after a cursor (0: all this process wrote, cut to its
// first and last failureStderrLines/2; never an earlier process's lines).
func (s *session) report(ring *wire.Ring, stderrSince int) ProcessReport {
	r := ProcessReport{Command: s.cfg.Target()}
	if s.proc == nil {
		r.NoProcess = true
		return r
	}
	if e, ok := s.proc.Exit(); ok {
		r.Exit, r.ExitRaw = e.Sentence(), &e
	}
	s.takeStderr(ring)
	ex := ring.Since(max(stderrSince, s.stderrBase)).Trim(failureStderrLines/2, failureStderrLines/2)
	r.Stderr = ex.Render(true)
	r.Noise = s.evidence.Snapshot().Noise
	return r
}

// stop ends the session from outside the actor: the channel closed, the
// process stopped (with everything it started), and the channel's last
// Inbound awaited (the actor, or retire's drain, reads it).
func (s *session) stop() {
	defer func() {
		select {
		case <-s.stopped:
		default:
			close(s.stopped)
		}
	}()
	if s.ch == nil {
		return
	}
	_ = s.ch.Close()
	if s.proc != nil {
		s.proc.StopAfter(s.stopGrace)
	}
	<-s.ch.Done()
}

// retire takes s out of service on the actor: its requests and open
// questions end, and its channel's remaining output is read and dropped by a
// goroutine of its own (which ends with the channel), so nothing waits on
// the actor for it. It does not stop the process: the caller does, off the
// actor (stop).
func (c *Conn) retire(st *connState, s *session) {
	if s.retired {
		return
	}
	s.retired = true
	for key, p := range st.pending {
		if p.sess != s {
			continue
		}
		delete(st.pending, key)
		switch {
		case p.reply != nil:
			p.reply <- answer{err: &wire.ClosedError{Reason: s.chanErr}}
		case p.stream != nil:
			p.stream.end(errors.New("the connection ended"))
		}
	}
	for _, r := range st.rounds {
		if r.sess == s {
			c.dropRound(st, r)
		}
	}
	for _, str := range s.streams {
		str.end(errors.New("the connection ended"))
	}
	if !s.channelEnded && s.in != nil {
		go func() {
			for in := range s.in {
				if in.Closed {
					return
				}
			}
		}()
	}
}

// lifeReport is a connect failure's or a dead session's report, read on the
// actor.
func (c *Conn) lifeReport(ctx context.Context, s *session, since int) ProcessReport {
	r, err := ask(ctx, c, func(st *connState) ProcessReport { return s.report(st.stderr, since) })
	if err != nil {
		return s.reportAfter(since)
	}
	return r
}

// reportAfter is report for a session no actor holds any more (its actor
// stopped, and its ring with it): how the process ended.
func (s *session) reportAfter(int) ProcessReport {
	r := ProcessReport{Command: s.cfg.Target(), NoProcess: s.proc == nil}
	if s.proc == nil {
		return r
	}
	if e, ok := s.proc.Exit(); ok {
		r.Exit, r.ExitRaw = e.Sentence(), &e
	}
	return r
}

// takeStderr moves what the process's stderr feed holds into ring.
func (s *session) takeStderr(ring *wire.Ring) {
	if s.proc == nil || s.stderrDone {
		return
	}
	feed := s.proc.Stderr()
	b := feed.Take()
	ring.AppendBatch(b) // copies the lines: the batch is done with
	s.stderrDone = b.End
	feed.Recycle(b)
}

// decodeInit reads an initialize result (or, on 2026-07-28, what discover
// said) into the typed form run-mcp's checks use.
func decodeInit(raw json.RawMessage) (*mcp.InitializeResult, error) {
	var res mcp.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the server's answer to initialize is not an initialize result: %s", wire.JSONWords(err))
	}
	return &res, nil
}

// maxRedirectsKept bounds the distinct redirects a life keeps: a server
// that sends each request somewhere new must not grow run-mcp's memory.
const maxRedirectsKept = 32

// noteRedirect keeps r unless this life has it already (or has
// maxRedirectsKept).
func (s *session) noteRedirect(r wire.Redirect) {
	for _, have := range s.redirects {
		if have.Status == r.Status && have.From == r.From && have.To == r.To {
			return
		}
	}
	if len(s.redirects) < maxRedirectsKept {
		s.redirects = append(s.redirects, r)
	}
}
