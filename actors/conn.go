package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/internal/toolcheck"
	"github.com/run-mcp/run-mcp/wire"
)

// Phase is where a connection is in its life.
type Phase string

// Phases of a connection.
const (
	PhaseConnecting   Phase = "connecting"
	PhaseLive         Phase = "live"
	PhaseDead         Phase = "dead"         // the server exited or the channel closed by itself
	PhaseDisconnected Phase = "disconnected" // run-mcp stopped it on request
	PhaseFailed       Phase = "failed"       // the last connect attempt failed
	PhaseClosed       Phase = "closed"       // run-mcp closed it: the server sent a message over the cap
)

// Config says how to reach a target and how to treat it. Zero values mean
// the defaults; Reconnect keeps the last values for what it is not given.
type Config struct {
	Spec           wire.Spec
	URL            string
	Headers        map[string]string
	Era            wire.Era
	ConnectTimeout time.Duration
	// RequestTimeout is the housekeeping budget of this connection's
	// requests other than calls (0: the registry's; see deadline.go).
	RequestTimeout time.Duration
	Roots          []mcp.Root
	LogLevel       mcp.LoggingLevel
	// Listing asks for every tool, resource, template and prompt to be
	// listed after the handshake (connect replies and reconnect diffs need
	// it; a one-shot call does not).
	Listing bool
}

// DefaultConnectTimeout is how long a handshake may take before the server is
// given up on.
const DefaultConnectTimeout = 30 * time.Second

// IsHTTP says whether the target is reached over Streamable HTTP.
func (c Config) IsHTTP() bool { return c.URL != "" }

// Target names the target as a person would: its command line or URL.
func (c Config) Target() string {
	if c.IsHTTP() {
		return c.URL
	}
	return c.Spec.CommandLine()
}

// Conn is the actor that owns one named connection.
type Conn struct {
	name    string
	env     *engine
	mailbox chan func(*connState)
	quit    chan struct{}
	stopped chan struct{}
	notes   *noteLog
	// stderr is the one ring every process of this connection writes into,
	// so positions continue across reconnects.
	stderr *wire.Ring
	// lifecycle serialises connect, reconnect and disconnect, which do their
	// slow I/O off the mailbox.
	lifecycle sync.Mutex
	// phase mirrors the actor's phase after every operation, so the Registry
	// can count open connections without a round trip to every actor.
	phase atomic.Value
	// why is st.why as of the last operation, for messages the Registry
	// writes without a round trip through the mailbox.
	why atomic.Value
	// tools caches the last tool list for argument checks without a round
	// trip through the mailbox on every call (it is hot: every tool call).
	tools atomic.Pointer[toolSet]
	// fast holds the express calls in flight (express.go); callSeq numbers
	// every call of the connection, express or not (its progress token).
	fast    expressTable
	callSeq atomic.Int64
}

// toolSet is one tools/list: typed for checks, raw for printing.
type toolSet struct {
	// typed is read through tools(): when lazy, it is decoded from raw on
	// first use (listToolsRaw).
	typed     []mcp.Tool
	lazy      bool
	typedOnce sync.Once
	raw       []json.RawMessage
	// required indexes each tool's required arguments, built on first use
	// (a call checks them; reading a schema per call was a decode per call).
	indexOnce sync.Once
	required  map[string][]string
	rawOnce   sync.Once
	rawByName map[string]json.RawMessage
}

// tools is the typed list, decoded from the raw entries on first use when
// the listing came without it.
func (s *toolSet) tools() []mcp.Tool {
	s.typedOnce.Do(func() {
		if s.lazy {
			s.typed = decodeTools(s.raw)
		}
	})
	return s.typed
}

// rawOf returns tool name's definition as the server sent it (the first,
// if it lists the name twice), from an index built on first use.
func (s *toolSet) rawOf(name string) json.RawMessage {
	s.rawOnce.Do(func() {
		s.rawByName = make(map[string]json.RawMessage, len(s.raw))
		for _, r := range s.raw {
			if n := snapshot.Read(r).Name; s.rawByName[n] == nil {
				s.rawByName[n] = r
			}
		}
	})
	return s.rawByName[name]
}

// requiredOf returns the arguments tool name requires; ok is false when the
// list has no such tool.
func (s *toolSet) requiredOf(name string) (req []string, ok bool) {
	s.indexOnce.Do(func() {
		tools := s.tools()
		s.required = make(map[string][]string, len(tools))
		for _, t := range tools {
			s.required[t.Name] = toolcheck.Required(t)
		}
	})
	req, ok = s.required[name]
	return req, ok
}

// engine is what every Conn of a Registry shares.
type engine struct {
	spawner    *wire.Spawner
	host       Host
	clientInfo mcp.Implementation
	log        *slog.Logger
	// requestTimeout is the housekeeping budget of connections that set
	// none (0: DefaultRequestTimeout).
	requestTimeout time.Duration
	words          Words
	// signalAtOnce: see Options.SignalAtOnce.
	signalAtOnce bool
}

type connState struct {
	cfg         Config
	phase       Phase
	why         string // why the connection is not live, for NO_CONNECTION
	ended       string // how a life that ended by itself ended, for status
	sess        *session
	lastFailure *ConnectError
	listing     snapshot.Listing
	calls       map[int]*callState
	openRounds  int
	roundSeq    int
	lastUsed    time.Time
	connects    int
	sinceDown   time.Time
	// waiters are the requests waiting for a connect or reconnect in
	// progress to finish; each channel is closed once the phase is no
	// longer connecting.
	waiters []chan struct{}
}

func newConn(name string, env *engine) *Conn {
	c := &Conn{name: name, env: env, mailbox: make(chan func(*connState), 64),
		quit: make(chan struct{}), stopped: make(chan struct{}), notes: newNoteLog(), stderr: wire.NewRing()}
	c.phase.Store(PhaseConnecting)
	go c.loop()
	return c
}

// Name is the connection's name.
func (c *Conn) Name() string { return c.name }

func (c *Conn) loop() {
	defer close(c.stopped)
	st := &connState{calls: map[int]*callState{}, phase: PhaseConnecting}
	for {
		select {
		case op := <-c.mailbox:
			c.run(st, op)
		case <-c.quit:
			return
		}
	}
}

// run executes one operation; a panic is recovered and reported, the process
// stopped and the record kept, so one bad message cannot take the engine down.
func (c *Conn) run(st *connState, op func(*connState)) {
	defer func() {
		if r := recover(); r != nil {
			c.env.log.Error("connection actor recovered from a panic", "connection", c.name, "panic", r, "stack", string(debug.Stack()))
			defer c.phase.Store(PhaseDead)
			st.phase, st.why = PhaseDead, fmt.Sprintf("run-mcp hit an internal error (%v) and stopped the server; reconnect to start it afresh", r)
			if s := st.sess; s != nil {
				for _, call := range st.calls {
					call.cancel(&CallError{Reason: st.why})
				}
				why := st.why
				c.fast.publish(st)
				c.cancelAllExpress(func(*expressCall) error { return &CallError{Reason: why} })
				go s.stop()
			}
		}
	}()
	c.noticeDeath(st)
	op(st)
	c.mirror(st)
	c.fast.publish(st)
	if st.phase != PhaseConnecting && len(st.waiters) > 0 {
		for _, w := range st.waiters {
			close(w)
		}
		st.waiters = nil
	}
}

// Why is why the connection is not live, as of its last operation ("" while
// it is, or when nothing was said).
func (c *Conn) Why() string {
	w, _ := c.why.Load().(string)
	return w
}

// Phase is the connection's phase as of its last operation.
func (c *Conn) Phase() Phase {
	p, _ := c.phase.Load().(Phase)
	return p
}

// mirror copies the phase and its reason where Phase and Why read them
// without the actor.
func (c *Conn) mirror(st *connState) {
	c.phase.Store(st.phase)
	c.why.Store(st.why)
}

// do runs op on the actor and waits for it, or for ctx. The mirrors are
// brought up to date before it returns (run does it again, after): a
// Phase read just after a Connect must not see the phase from before it.
func (c *Conn) do(ctx context.Context, op func(*connState)) error {
	done := make(chan struct{})
	wrapped := func(st *connState) {
		defer close(done)
		op(st)
		c.mirror(st)
	}
	select {
	case c.mailbox <- wrapped:
	case <-c.stopped:
		return coded(CodeNoConnection, "connection %q has been closed", c.name)
	case <-ctx.Done():
		return coded(CodeCancelled, "the request was cancelled before connection %q took it up", c.name)
	}
	select {
	case <-done:
		return nil
	case <-c.stopped:
		return coded(CodeNoConnection, "connection %q closed while answering", c.name)
	}
}

// post sends op without waiting for it to run (timers, read loops).
func (c *Conn) post(op func(*connState)) {
	select {
	case c.mailbox <- op:
	case <-c.stopped:
	}
}

// ask runs f on the actor and returns its value.
func ask[T any](ctx context.Context, c *Conn, f func(*connState) T) (T, error) {
	var out T
	err := c.do(ctx, func(st *connState) { out = f(st) })
	return out, err
}

// shutdown stops the actor goroutine; the session must already be stopped.
func (c *Conn) shutdown() {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	<-c.stopped
}
