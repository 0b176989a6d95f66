package actors

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// Connect, reconnect and disconnect are operations: each runs on its
// caller's goroutine, serialised by the Conn's lifecycle lock, does its slow
// work (spawning, the handshake, stopping a process) there, and changes the
// actor's state only through messages. Status, stderr and calls are
// answered meanwhile.

// Reconnected is what a reconnect reports.
type Reconnected struct {
	Info     Info
	Before   snapshot.Listing
	HadPrior bool // a listing from an earlier life exists to diff against
	// Stopped is "stopped PID N" when a live process was stopped to make
	// room for the new one; empty when none was running.
	Stopped string
}

// connect starts the target described by cfg in place of an ended life (a
// record); a live connection is refused, never silently replaced.
func (c *Conn) connect(ctx context.Context, cfg Config) (Reconnected, error) {
	return c.replace(ctx, func(old *Config) { *old = cfg }, false)
}

// reconnect stops the current life (failing calls in flight with a message
// saying so) and starts a new one with cfg merged over the last settings.
func (c *Conn) reconnect(ctx context.Context, override func(*Config)) (Reconnected, error) {
	return c.replace(ctx, override, true)
}

// interrupt is the message that begins a connect or reconnect: the calls in
// flight fail with an error saying a reconnect interrupted them (after how
// long), the old life is retired, and the connection is connecting.
type interrupt struct {
	reconnect bool
	done      func(old *session, cfg Config, before snapshot.Listing, hadPrior, wasLive bool, refused error)
}

func (m interrupt) apply(c *Conn, st *connState) {
	if !m.reconnect && st.phase == PhaseLive && st.sess != nil {
		m.done(nil, Config{}, snapshot.Listing{}, false, false, c.alreadyConnected(st.sess))
		return
	}
	old, wasLive := st.sess, st.phase == PhaseLive
	hadPrior := st.connects > 0 && (st.listing.Has.Tools || st.listing.Has.Resources || st.listing.Has.Prompts)
	now := time.Now()
	c.failAll(st, func(call *callState) error { return &InterruptedError{After: now.Sub(call.started)} })
	if old != nil {
		c.retire(st, old)
	}
	st.sess = nil
	st.phase, st.why = PhaseConnecting, "it is connecting"
	m.done(old, st.cfg, st.listing, hadPrior, wasLive, nil)
}

func (c *Conn) replace(ctx context.Context, override func(*Config), reconnect bool) (Reconnected, error) {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	var cfg Config
	var old *session
	var before snapshot.Listing
	var hadPrior, wasLive bool
	var refused error
	q := interrupt{reconnect: reconnect, done: func(o *session, cf Config, b snapshot.Listing, hp, wl bool, r error) {
		old, cfg, before, hadPrior, wasLive, refused = o, cf, b, hp, wl, r
	}}
	err := c.do(ctx, func(st *connState) { q.apply(c, st) })
	if err != nil {
		// Cancelled before the actor took it up: nothing changed, but a
		// fresh record must not stay "connecting" with no connect running.
		_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
			if st.phase == PhaseConnecting && st.sess == nil {
				st.phase, st.why = PhaseFailed, "the connect was cancelled before it started"
			}
		})
		return Reconnected{}, err
	}
	if refused != nil {
		return Reconnected{}, refused
	}
	var stopped string
	if old != nil {
		old.stop()
		if old.proc != nil && wasLive {
			stopped = fmt.Sprintf("stopped PID %d", old.proc.Pid())
		}
	}
	if override != nil {
		override(&cfg)
	}
	if reconnect {
		cfg.Listing = true
	}
	info, err := c.connectLocked(ctx, cfg)
	return Reconnected{Info: info, Before: before, HadPrior: hadPrior, Stopped: stopped}, err
}

// connectLocked opens a new life with cfg; the connection is connecting.
func (c *Conn) connectLocked(ctx context.Context, cfg Config) (Info, error) {
	var auth, stale *oauth.Client
	if err := c.do(context.WithoutCancel(ctx), func(st *connState) {
		if !sameAuth(st.auth, cfg, st.cfg) {
			stale, st.auth = st.auth, newAuth(cfg)
		}
		st.cfg, auth = cfg, st.auth
	}); err != nil {
		return Info{}, err
	}
	if stale != nil {
		stale.Close()
	}
	s, err := c.open(ctx, cfg, auth)
	var stream *Stream
	if err == nil {
		stream = c.listenForChanges(ctx, s)
	}
	var listing snapshot.Listing
	if err == nil && cfg.Listing {
		listing, err = c.listing(ctx, s)
		if err != nil {
			err = c.failOpen(ctx, s, "the server completed the handshake but failed to list what it offers: "+reasonOf(err), err)
		}
	}
	if err != nil {
		ce, _ := err.(*ConnectError)
		_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
			if st.sess == s {
				st.sess = nil
			}
			if st.phase == PhaseConnecting {
				st.phase, st.lastFailure, st.sinceDown = PhaseFailed, ce, time.Now()
				st.why = "the last connect failed: " + firstLine(err.Error())
			}
			c.failWaiting(st, err)
		})
		return Info{}, err
	}
	var info Info
	var gone bool
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		if st.sess != s || s.retired {
			gone = true // it died during the listing, and the actor said so
			return
		}
		st.phase, st.why, st.lastFailure = PhaseLive, "", nil
		if cfg.Listing {
			st.listing = listing
			st.tools = nil
			if listing.Has.Tools {
				st.tools = newToolSet(listing.Raw.Tools)
			}
		}
		st.connects++
		st.lastUsed = time.Now()
		info = s.info(c.name)
		info.Listing = st.listing
		info.Listen = stream
		c.startWaiting(st)
	})
	if gone {
		return Info{}, c.failOpen(ctx, s, "the server went away right after the handshake", &wire.ClosedError{})
	}
	if s.proc != nil {
		go c.watchExit(s)
	}
	return info, nil
}

// open starts a target and completes the handshake. On failure everything it
// started is stopped and the error carries the evidence.
func (c *Conn) open(ctx context.Context, cfg Config, auth *oauth.Client) (*session, error) {
	grace := wire.StdinGrace
	if c.env.signalAtOnce {
		grace = 0
	}
	s := newSession(cfg, grace)
	s.auth = auth
	if err := s.start(c.env.spawner); err != nil {
		return nil, err
	}
	if err := c.do(context.WithoutCancel(ctx), func(st *connState) { c.attach(st, s) }); err != nil {
		s.stop()
		return nil, err
	}
	timeout := cfg.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	// A server that refuses the handshake until run-mcp is authorized gets
	// the authorization between two attempts, each with the whole budget:
	// the person's minutes at the authorization URL are not the server's.
	for tries := 0; ; tries++ {
		hsCtx, cancel := context.WithTimeoutCause(ctx, timeout, errBudgetSpent)
		err := c.handshake(hsCtx, s)
		if err == nil {
			cancel()
			break
		}
		if _, ok := challengeOf(err); ok && s.auth != nil && ctx.Err() == nil {
			if err = c.authorize(ctx, s, err, tries, &hostPerson{}); err == nil {
				cancel()
				continue
			}
		}
		ferr := c.handshakeFailed(ctx, s, hsCtx, timeout, err)
		cancel()
		return nil, ferr
	}
	if cfg.LogLevel != "" && !s.modern {
		_, err := c.exchange(ctx, s, string(mcp.MethodSetLogLevel), map[string]any{"level": cfg.LogLevel}, c.requestBudget(ctx, cfg), "")
		if err != nil {
			c.env.log.Warn("the server refused the log level", "connection", c.name, "level", cfg.LogLevel, "err", err)
		}
	}
	return s, nil
}

func (c *Conn) handshakeFailed(ctx context.Context, s *session, hsCtx context.Context, timeout time.Duration, err error) error {
	if errors.Is(context.Cause(hsCtx), errBudgetSpent) && ctx.Err() == nil {
		reason := fmt.Sprintf("the server did not complete the MCP handshake within %s", fmtDur(timeout))
		var slow *probeSilentError
		if errors.As(err, &slow) {
			reason = fmt.Sprintf("the server did not answer server/discover within %s (the connect budget)", fmtDur(timeout))
		}
		ce := c.failOpen(ctx, s, reason, err)
		what := "initialize"
		if slow != nil {
			what = "server/discover"
		}
		ce.Diagnosis = "It started but never answered " + what + ". It may be waiting on a database, a port or stdin, " +
			"or writing its protocol to the wrong stream (stderr instead of stdout). It was torn down. " +
			"If it is slow but healthy, raise connect_timeout_ms (--connect-timeout from a shell)."
		if slow != nil && s.cfg.Era.Mode == wire.EraAuto {
			ce.Diagnosis += " A server that ignores requests it does not know cannot be probed: use protocol legacy (--protocol legacy) for a server of the 2025 era."
		}
		return ce
	}
	if ctx.Err() != nil {
		return c.failOpen(ctx, s, "cancelled by the client before the handshake completed", err)
	}
	ce := c.failOpen(ctx, s, reasonOf(err), err)
	if s.cfg.IsHTTP() && !authFailed(err) {
		ce.Diagnosis = "Check that the server is listening at that URL and speaks Streamable HTTP. " +
			"The deprecated HTTP+SSE transport (often a URL ending in /sse) is not supported; use the server's Streamable HTTP endpoint (often /mcp)."
	}
	return ce
}

// failOpen tears a half-open session down and builds the report: the stderr
// from the moment it started, how the process ended, and stdout noise.
func (c *Conn) failOpen(ctx context.Context, s *session, reason string, err error) *ConnectError {
	ce := &ConnectError{Reason: reason, Err: err, Report: ProcessReport{Command: s.cfg.Target()}}
	closing, _ := ask(context.WithoutCancel(ctx), c, func(*connState) bool { return s.closing() })
	var chanErr error
	_ = c.do(context.WithoutCancel(ctx), func(*connState) { chanErr = s.chanErr })
	// A broken pipe on its stdin, like EOF on its stdout, is a server that
	// closed its end and is exiting by itself: stopping it at once would
	// race its exit and report it "stopped by run-mcp".
	if s.proc != nil && (closing || errors.Is(err, syscall.EPIPE)) {
		select {
		case <-s.proc.Done():
		case <-time.After(lateStderr):
		}
		if !diedByItself(s.proc) && !tooLarge(chanErr) {
			ce.Reason = stdoutClosed(s.proc.Pid()) + " (" + reason + "); run-mcp stopped it"
		}
	}
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) { c.retire(st, s) })
	s.stop()
	ce.Report = c.lifeReport(ctx, s, 0)
	return ce
}

// attach makes s the connection's current life. The lines of its process
// follow the earlier processes' in the connection's ring, after the one
// marker line that says where the last one ended and this one began.
func (c *Conn) attach(st *connState, s *session) {
	st.sess = s
	if s.proc == nil {
		return
	}
	if prev := st.lastProc; prev != nil {
		prev.takeStderr(st.stderr) // stopped and drained by now: its last words
		st.stderr.Append(wire.LifeMarker(prev.proc.Pid(), prev.proc.EndSentence(), s.proc.Pid()), time.Now())
	}
	st.lastProc = s
	s.stderrBase = st.stderr.Total()
}

// watchExit tells the actor when the session's process has been reaped.
func (c *Conn) watchExit(s *session) {
	select {
	case <-s.proc.Exited():
		c.post(processExited{s: s})
	case <-s.stopped:
	case <-c.stopped:
	}
}

// processExited: the target's process was reaped. If its stdout is still
// served (a launcher that left its child serving the pipes), the connection
// lives on; otherwise its end is reported once the channel has closed.
type processExited struct{ s *session }

func (m processExited) apply(c *Conn, st *connState) {
	s := m.s
	if st.sess != s || s.retired {
		return
	}
	// The channel closes a moment after a crash; a launcher's child keeps
	// it open for good. Look again once the last stderr is in, or after
	// lateStderr.
	c.awaitLastWords(s)
}

// awaitLastWords has the actor look at s again (deathCheck) once its
// process has ended and its stderr has been read to the end, or after
// lateStderr: a report of how a server died carries its last words.
func (c *Conn) awaitLastWords(s *session) {
	go func() {
		t := time.NewTimer(lateStderr)
		defer t.Stop()
		select {
		case <-s.proc.Done():
		case <-t.C:
		case <-c.stopped:
			return
		}
		c.post(deathCheck{s: s})
	}()
}

// deathCheck looks at a session whose channel or process ended a moment
// ago, once the other end has had time to follow.
type deathCheck struct{ s *session }

func (m deathCheck) apply(c *Conn, st *connState) {
	s := m.s
	if st.sess != s || s.retired || st.phase != PhaseLive && st.phase != PhaseConnecting {
		return
	}
	if s.channelEnded {
		c.markDead(st, s)
		return
	}
	if e, ok := s.proc.Exit(); ok && s.launcher == "" {
		// The process exited and its stdout is still served: a launcher
		// that left what it started serving the pipes. The connection
		// lives while they are served.
		s.launcher = e.LauncherSentence(s.proc.Pid(), s.proc.Serving())
		c.env.log.Warn("the launcher exited; what it started serves the connection", "connection", c.name, "pid", s.proc.Pid())
	}
}

// channelEnded records that s's channel delivered its last Inbound.
func (c *Conn) channelClosed(st *connState, s *session, err error) {
	s.channelEnded, s.chanErr = true, err
	for key, p := range st.pending {
		if p.sess == s && p.call == nil {
			delete(st.pending, key)
			c.failPending(st, p, &wire.ClosedError{Reason: err})
		}
	}
	if st.sess != s || s.retired {
		return
	}
	if s.proc == nil || tooLarge(err) {
		c.markDead(st, s)
		return
	}
	c.awaitLastWords(s)
}

// markDead records that session s ended by itself, unless it was replaced or
// stopped on purpose meanwhile; its calls fail with how it ended.
func (c *Conn) markDead(st *connState, s *session) {
	if st.sess != s || s.retired {
		return
	}
	if st.phase == PhaseLive {
		st.sinceDown = time.Now()
		st.phase, st.why, st.ended = s.ending()
	}
	c.failAll(st, func(call *callState) error { return c.diedDuringCall(st, call) })
	c.retire(st, s)
	// The process record (stderr, exit) stays readable; stopping makes
	// sure the group and our goroutines are gone.
	go s.stop()
}

// noticeDeath runs before every message: a session whose process has been
// reaped and whose channel has closed is dead now, even if the messages
// that say so have not been taken up yet.
func (c *Conn) noticeDeath(st *connState) {
	s := st.sess
	if st.phase != PhaseLive || s == nil || s.retired || s.proc == nil {
		return
	}
	if s.channelEnded && isClosed(s.proc.Done()) {
		c.markDead(st, s)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// alreadyConnected is the refusal of a connect under the name of a live
// connection, in 3.0's words, with the two ways to replace it.
func (c *Conn) alreadyConnected(s *session) error {
	pid := ""
	if s.proc != nil {
		pid = fmt.Sprintf(" (PID: %d)", s.proc.Pid())
	}
	hint := ""
	if c.name != DefaultName {
		hint = " connection=" + c.name
	}
	return coded(CodeAlreadyConnected, "Already connected to an MCP server%s under the name %q: %s. Nothing was changed. "+
		"To restart it (after editing it), call reconnect_to_mcp%s; to run a different command under this name, call disconnect_from_mcp%s first, then connect_to_mcp; "+
		"to run both, give connect_to_mcp another name.", pid, c.name, s.cfg.Target(), hint, hint)
}

// Disconnected is what a disconnect reports.
type Disconnected struct {
	Pid    int
	Uptime time.Duration
	Exit   string
}

// disconnect stops the target; the record stays.
func (c *Conn) disconnect(ctx context.Context, why string) (Disconnected, error) {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	var s *session
	var notLive error
	err := c.do(ctx, func(st *connState) {
		if st.phase != PhaseLive {
			notLive = coded(CodeNoConnection, "connection %q is not running: %s", c.name, st.why)
			return
		}
		s = st.sess
		c.failAll(st, func(*callState) error {
			return &CallError{Code: CodeCancelled, Reason: "the connection was disconnected during the call"}
		})
		st.phase, st.why, st.sinceDown = PhaseDisconnected, why, time.Now()
		c.retire(st, s)
	})
	if err != nil {
		return Disconnected{}, err
	}
	if notLive != nil {
		return Disconnected{}, notLive
	}
	d := Disconnected{Uptime: time.Since(s.started)}
	if s.proc != nil {
		d.Pid = s.proc.Pid()
	}
	s.stop()
	if s.proc != nil {
		if e, ok := s.proc.Exit(); ok {
			d.Exit = e.Sentence()
		}
	}
	return d, nil
}

// close stops everything the Conn owns and its actor.
func (c *Conn) close() {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	var s *session
	_ = c.do(context.Background(), func(st *connState) {
		s = st.sess
		c.failAll(st, func(*callState) error { return &CallError{Code: CodeCancelled, Reason: "run-mcp is shutting down"} })
		if st.phase == PhaseLive || st.phase == PhaseConnecting {
			st.phase, st.why = PhaseDisconnected, "run-mcp shut it down"
		}
		if s != nil {
			c.retire(st, s)
		}
	})
	if s != nil {
		s.stop()
	}
	c.shutdown()
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
