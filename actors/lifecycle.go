package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
)

// connect starts the target described by cfg in place of an ended life (a
// record); a live connection is refused, never silently replaced. The
// handshake runs off the mailbox (it can take seconds).
func (c *Conn) connect(ctx context.Context, cfg Config) (Reconnected, error) {
	return c.replace(ctx, func(old *Config) { *old = cfg }, false)
}

func (c *Conn) connectLocked(ctx context.Context, cfg Config) (Info, error) {
	if err := c.do(context.WithoutCancel(ctx), func(st *connState) { st.phase, st.cfg = PhaseConnecting, cfg }); err != nil {
		return Info{}, err
	}
	s, err := c.open(ctx, cfg, c.handleTargetRequest)
	var stream *Stream
	if err == nil {
		stream = c.listenForChanges(ctx, s)
	}
	var listing snapshot.Listing
	if err == nil && cfg.Listing {
		listing, err = c.listing(ctx, s)
		if err != nil {
			err = c.failOpen(s, "the server completed the handshake but failed to list what it offers: "+reasonOf(err), err)
		}
	}
	if err != nil {
		ce, _ := err.(*ConnectError)
		_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
			st.phase, st.lastFailure, st.sinceDown = PhaseFailed, ce, time.Now()
			st.why = "the last connect failed: " + firstLine(err.Error())
		})
		return Info{}, err
	}
	var info Info
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		st.sess, st.phase, st.why, st.lastFailure = s, PhaseLive, "", nil
		if cfg.Listing {
			st.listing = listing
		}
		c.tools.Store(nil)
		if cfg.Listing && listing.Has.Tools {
			c.tools.Store(&toolSet{typed: listing.Tools, raw: listing.Raw.Tools})
		}
		st.connects++
		st.lastUsed = time.Now()
		info = s.info(c.name)
		info.Listing = st.listing
		info.Listen = stream
	})
	go c.watch(s)
	return info, nil
}

// listenForChanges opens, on a 2026-07-28 connection, one listen stream for
// every list_changed kind the server advertises; in that era a server sends
// change notifications only on such a stream.
func (c *Conn) listenForChanges(ctx context.Context, s *session) *Stream {
	if s.init == nil || !mcp.IsModernProtocol(s.init.ProtocolVersion) {
		return nil
	}
	caps := s.init.Capabilities
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = caps.Tools != nil && caps.Tools.ListChanged
	f.PromptsListChanged = caps.Prompts != nil && caps.Prompts.ListChanged
	f.ResourcesListChanged = caps.Resources != nil && caps.Resources.ListChanged
	if f.IsEmpty() {
		return nil
	}
	st, err := c.listen(ctx, s, f)
	if err != nil {
		c.env.log.Warn("listen stream failed", "connection", c.name, "err", err)
	}
	return &st
}

// watch tells the actor when a session's process exits or its channel
// closes by itself, so status and calls report the death.
func (c *Conn) watch(s *session) {
	var gone <-chan struct{}
	if s.proc != nil {
		gone = s.proc.Exited()
	}
	var closed <-chan struct{}
	if s.wt != nil {
		closed = s.wt.Done()
	}
	select {
	case <-gone:
	case <-closed:
		// stdout closed first: a crashing server is usually a moment from
		// being reaped; wait for it so its exit is reported as its own. A
		// message over the cap is run-mcp's own doing: no wait.
		if gone != nil && !tooLarge(s.wt.Err()) {
			select {
			case <-gone:
			case <-time.After(lateStderr):
			}
		}
	case <-s.stopped:
		return // stopped on purpose: nothing to report
	case <-c.stopped:
		return
	}
	c.post(func(st *connState) { c.markDead(st, s) })
}

// markDead records that session s ended by itself, unless it was replaced or
// stopped on purpose meanwhile.
func (c *Conn) markDead(st *connState, s *session) {
	if st.sess != s || st.phase != PhaseLive {
		return
	}
	st.sinceDown = time.Now()
	st.phase, st.why, st.ended = s.ending()
	// The process record (stderr, exit) stays readable; stopping makes
	// sure the group and our goroutines are gone.
	go s.stop()
}

// noticeDeath runs before every operation of the actor: a session whose
// process has been reaped (or, without a process, whose channel has closed)
// is dead now, even if the watcher's message has not arrived yet. Without it
// a status query that overtook the watcher reported "live" beside the exit
// sentence. A closed stdout with the process still running is left to the
// watcher, which gives the process a moment to be reaped.
func (c *Conn) noticeDeath(st *connState) {
	s := st.sess
	if st.phase != PhaseLive || s == nil {
		return
	}
	if s.proc != nil && isClosed(s.proc.Exited()) || s.proc == nil && s.wt != nil && isClosed(s.wt.Done()) ||
		s.wt != nil && tooLarge(s.wt.Err()) {
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

// Reconnected is what a reconnect reports.
type Reconnected struct {
	Info     Info
	Before   snapshot.Listing
	HadPrior bool // a listing from an earlier life exists to diff against
	// Stopped is "stopped PID N" when a live process was stopped to make
	// room for the new one; empty when none was running.
	Stopped string
}

// reconnect stops the current life (failing calls in flight with a message
// saying so) and starts a new one with cfg merged over the last settings.
func (c *Conn) reconnect(ctx context.Context, override func(*Config)) (Reconnected, error) {
	return c.replace(ctx, override, true)
}

func (c *Conn) replace(ctx context.Context, override func(*Config), reconnect bool) (Reconnected, error) {
	c.lifecycle.Lock()
	defer c.lifecycle.Unlock()
	var cfg Config
	var old *session
	var before snapshot.Listing
	var hadPrior, wasLive bool
	var refused error
	err := c.do(ctx, func(st *connState) {
		if !reconnect && st.phase == PhaseLive && st.sess != nil {
			refused = c.alreadyConnected(st.sess)
			return
		}
		cfg, old, before, wasLive = st.cfg, st.sess, st.listing, st.phase == PhaseLive
		hadPrior = st.connects > 0 && (st.listing.Has.Tools || st.listing.Has.Resources || st.listing.Has.Prompts)
		for _, call := range st.calls {
			call.cancel(&InterruptedError{After: time.Since(call.started)})
		}
		st.phase, st.why = PhaseConnecting, "it is connecting"
		c.fast.publish(st)
		c.cancelAllExpress(func(ec *expressCall) error { return &InterruptedError{After: time.Since(ec.clock.started)} })
	})
	if err != nil {
		// Cancelled before the actor took it up: nothing changed, but a
		// fresh record must not stay "connecting" with no connect running.
		_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
			if st.phase == PhaseConnecting {
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
		for _, call := range st.calls {
			call.cancel(&CallError{Code: CodeCancelled, Reason: "the connection was disconnected during the call"})
		}
		st.phase, st.why, st.sinceDown = PhaseDisconnected, why, time.Now()
		c.fast.publish(st)
		c.cancelAllExpress(func(*expressCall) error {
			return &CallError{Code: CodeCancelled, Reason: "the connection was disconnected during the call"}
		})
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
		for _, call := range st.calls {
			call.cancel(&CallError{Code: CodeCancelled, Reason: "run-mcp is shutting down"})
		}
		st.phase, st.why = PhaseDisconnected, "run-mcp shut it down"
		c.fast.publish(st)
		c.cancelAllExpress(func(*expressCall) error { return &CallError{Code: CodeCancelled, Reason: "run-mcp is shutting down"} })
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
