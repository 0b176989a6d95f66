package actors

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
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

// Conn is the actor that owns one named connection: one goroutine (loop)
// alone reads and writes its state, and everything else reaches it through
// its mailbox. The only other state is what the Registry reads without a
// round trip (the phase), the serialisation of slow lifecycle operations,
// and the numbering of calls.
type Conn struct {
	name    string
	env     *engine
	mailbox chan message
	quit    chan struct{}
	stopped chan struct{}
	// lifecycle serialises connect, reconnect and disconnect, which do their
	// slow I/O (spawning, stopping a process) off the actor.
	lifecycle sync.Mutex
	// shown is the phase and why as of the actor's last message, for the
	// Registry, which counts and describes connections without asking each.
	shown atomic.Pointer[shownPhase]
	// callSeq numbers the calls, so Start can name a call before the actor
	// has taken it up.
	callSeq atomic.Int64
}

type shownPhase struct {
	phase Phase
	why   string
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

// connState is everything the actor owns. Only loop's goroutine touches it.
type connState struct {
	cfg         Config
	phase       Phase
	why         string // why the connection is not live, for NO_CONNECTION
	ended       string // how a life that ended by itself ended, for status
	sess        *session
	lastFailure *ConnectError
	listing     snapshot.Listing
	tools       *toolSet // the last tool list, for checking calls
	refresh     *refresh // a tools/list under way for calls that wait on it
	calls       map[CallID]*callState
	// byToken finds a call by the progress token it offered.
	byToken map[string]*callState
	pending map[string]*pending
	// late are the keys of requests given up on, whose answers may still
	// come and are no transport error (bounded: see forget).
	late      map[string]bool
	lateOrder []string
	rounds    map[int]*round
	roundSeq  int
	notes     noteLog
	// stderr is the one ring every process of this connection writes
	// into, so positions continue across reconnects.
	stderr    *wire.Ring
	reqSeq    int64
	lastUsed  time.Time
	connects  int
	sinceDown time.Time
	// waiters are operations waiting for the connect in progress; each is
	// closed once the phase is no longer connecting.
	waiters []chan struct{}
}

func newConn(name string, env *engine) *Conn {
	c := &Conn{name: name, env: env, mailbox: make(chan message, 256), quit: make(chan struct{}), stopped: make(chan struct{})}
	c.shown.Store(&shownPhase{phase: PhaseConnecting})
	go c.loop()
	return c
}

// Name is the connection's name.
func (c *Conn) Name() string { return c.name }

// message is one thing the actor is asked to do. Each kind is a type of its
// own (the protocol is listed in doc.go); apply runs on the actor.
type message interface {
	apply(c *Conn, st *connState)
}

// query is a message that reads or changes the state and answers its
// sender, who waits on done.
type query struct {
	f    func(st *connState)
	done chan struct{}
}

func (q query) apply(c *Conn, st *connState) {
	defer close(q.done)
	q.f(st)
	c.afterMessage(st) // what its sender reads next must be current
}

func (c *Conn) loop() {
	defer close(c.stopped)
	st := &connState{calls: map[CallID]*callState{}, byToken: map[string]*callState{}, pending: map[string]*pending{}, rounds: map[int]*round{},
		late: map[string]bool{}, phase: PhaseConnecting, stderr: wire.NewRing()}
	for {
		var in <-chan wire.Inbound
		if st.sess != nil && !st.sess.channelEnded && !st.sess.retired {
			in = st.sess.in
		}
		select {
		case m := <-c.mailbox:
			c.run(st, m)
		case batch := <-in:
			c.run(st, inbound{s: st.sess, in: batch})
		case <-c.quit:
			c.shutdownState(st)
			return
		}
	}
}

// run applies one message; a panic is recovered and reported, the process
// stopped and the record kept, so one bad message cannot take the engine down.
func (c *Conn) run(st *connState, m message) {
	defer func() {
		if r := recover(); r != nil {
			c.env.log.Error("connection actor recovered from a panic", "connection", c.name, "panic", r, "stack", string(debug.Stack()))
			why := fmt.Sprintf("run-mcp hit an internal error (%v) and stopped the server; reconnect to start it afresh", r)
			c.failAll(st, func(*callState) error { return &CallError{Reason: why} })
			st.phase, st.why = PhaseDead, why
			if s := st.sess; s != nil {
				c.retire(st, s)
				go s.stop()
			}
			c.afterMessage(st)
		}
	}()
	c.noticeDeath(st)
	m.apply(c, st)
	c.afterMessage(st)
}

// afterMessage publishes the phase and releases the operations waiting for
// a connect once it has settled.
func (c *Conn) afterMessage(st *connState) {
	if cur := c.shown.Load(); cur.phase != st.phase || cur.why != st.why {
		c.shown.Store(&shownPhase{phase: st.phase, why: st.why})
	}
	if st.phase != PhaseConnecting && len(st.waiters) > 0 {
		for _, w := range st.waiters {
			close(w)
		}
		st.waiters = nil
	}
}

// Why is why the connection is not live, as of its last message ("" while
// it is, or when nothing was said).
func (c *Conn) Why() string { return c.shown.Load().why }

// Phase is the connection's phase as of its last message.
func (c *Conn) Phase() Phase { return c.shown.Load().phase }

// post sends m without waiting for it to run (timers, the relays of client
// input). A closed connection drops it.
func (c *Conn) post(m message) {
	select {
	case c.mailbox <- m:
	case <-c.stopped:
	}
}

// do runs f on the actor and waits for it, or for ctx until the actor has
// taken it up (once taken up it runs to its end, which is quick).
func (c *Conn) do(ctx context.Context, f func(st *connState)) error {
	q := query{f: f, done: make(chan struct{})}
	select {
	case c.mailbox <- q:
	case <-c.stopped:
		return coded(CodeNoConnection, "connection %q has been closed", c.name)
	case <-ctx.Done():
		return coded(CodeCancelled, "the request was cancelled before connection %q took it up", c.name)
	}
	select {
	case <-q.done:
		return nil
	case <-c.stopped:
		return coded(CodeNoConnection, "connection %q closed while answering", c.name)
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

// shutdownState releases what the actor still holds when it stops: every
// call and request is failed, every open question withdrawn.
func (c *Conn) shutdownState(st *connState) {
	c.failAll(st, func(*callState) error { return &CallError{Code: CodeCancelled, Reason: "run-mcp is shutting down"} })
	if s := st.sess; s != nil {
		c.retire(st, s)
	}
}
