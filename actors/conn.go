package actors

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/oauth"
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
	// OAuth says how an HTTP target is authorized when it answers 401 (its
	// client identity, where tokens are kept); see auth.go. Headers with an
	// Authorization of the user's, or NoOAuth, turn the authorization off:
	// a 401 then fails the request with the server's answer.
	OAuth   oauth.Options
	NoOAuth bool
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
	// elicitSeq numbers run-mcp's own URL elicitations (elicitationId).
	elicitSeq atomic.Int64
	// stderrNews is signalled (never waited on) when a connection's stderr
	// ring grows: see Registry.StderrNews.
	stderrNews chan struct{}
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
	// stderr is the one ring the stderr of every process of this
	// connection goes into, so positions continue across reconnects;
	// lastProc is the newest life that had a process.
	stderr    *wire.Ring
	lastProc  *session
	reqSeq    int64
	lastUsed  time.Time
	connects  int
	sinceDown time.Time
	// waiters are operations waiting for the connect in progress; each is
	// closed once the phase is no longer connecting.
	waiters []chan struct{}
	// auth is the HTTP target's authorization (nil: none); it outlives a
	// life, so a reconnect keeps the token and a wait for a redirect.
	auth *oauth.Client
	// stderrAnnounced is stderr's Total when stderr news was last signalled.
	stderrAnnounced int
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
		var stderr <-chan struct{}
		if s := st.sess; s != nil && s.proc != nil && !s.stderrDone {
			stderr = s.proc.Stderr().Ready()
		}
		select {
		case m := <-c.mailbox:
			c.run(st, m)
		case batch := <-in:
			c.run(st, inbound{s: st.sess, in: batch})
		case <-stderr:
			st.sess.takeStderr(st.stderr)
		case <-c.quit:
			c.shutdownState(st)
			return
		}
		c.announceStderr(st)
	}
}

// announceStderr signals the engine's stderr news when this connection's
// ring grew, however its lines came in (the feed, a call's start, a
// query): whoever follows stderr (the agent server's relay) looks only
// then, instead of asking every connection on a clock.
func (c *Conn) announceStderr(st *connState) {
	if total := st.stderr.Total(); total != st.stderrAnnounced {
		st.stderrAnnounced = total
		select {
		case c.env.stderrNews <- struct{}{}:
		default: // a signal is pending already: one look sees both
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
	if st.auth != nil {
		st.auth.Close()
		st.auth = nil
	}
}

// pending is a request run-mcp sent a target and waits for the answer to,
// filed by its id on the actor. Exactly one of call, reply, stream and
// refresh says who waits for it.
type pending struct {
	sess   *session
	method string
	// call is the call this request belongs to (a call may send several:
	// each input round of a 2026-07-28 call is answered by a new request).
	call *callState
	// reply is an operation waiting for the answer (a housekeeping
	// request, the handshake); buffered, so the actor never waits on it.
	reply chan answer
	// stream is a subscriptions/listen stream: its answer ends it.
	stream *stream
	// refresh is a tools/list page asked for calls that wait on it.
	refresh *refresh
}

// answer is what became of a request: the result as sent, or why not.
type answer struct {
	result json.RawMessage
	err    error
}

// rpcRequest is a request on the wire.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcNotification is a notification on the wire.
type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcResponse is an answer to a target's request.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wire.RPCError  `json:"error,omitempty"`
}

// send writes a request to s and files p under its id. name is the tool,
// prompt or resource it names (Mcp-Name over HTTP).
func (c *Conn) send(st *connState, s *session, p *pending, params any, name string) (key string, err error) {
	return c.sendWith(st, s, p, params, name, nil)
}

// sendWith is send with more HTTP headers for the request.
func (c *Conn) sendWith(st *connState, s *session, p *pending, params any, name string, headers map[string]string) (key string, err error) {
	st.reqSeq++
	id := "run-mcp-" + strconv.FormatInt(st.reqSeq, 10)
	b, err := json.Marshal(rpcRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: p.method, Params: params})
	if err != nil {
		return "", fmt.Errorf("encode the %s request: %w", p.method, err)
	}
	key = wire.IDKey(mustJSON(id))
	p.sess = s
	st.pending[key] = p
	if err := s.ch.Send(wire.Outbound{Msg: b, Key: key, Method: p.method, Name: name, Protocol: s.protocol, Headers: headers}); err != nil {
		delete(st.pending, key)
		return "", err
	}
	return key, nil
}

// notify writes a notification to s; a channel already closed is not an
// error worth reporting (the target is gone).
func (c *Conn) notify(s *session, method string, params any) {
	b, err := json.Marshal(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: method, Params: params})
	if err != nil {
		return
	}
	_ = s.ch.Send(wire.Outbound{Msg: b, Method: method, Protocol: s.protocol})
}

// respond answers a request of the target.
func (c *Conn) respond(s *session, id json.RawMessage, result any, rpcErr *wire.RPCError) {
	resp := rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: result, Error: rpcErr}
	if rpcErr == nil && result == nil {
		resp.Result = struct{}{}
	}
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
			Error: &wire.RPCError{Code: mcp.INTERNAL_ERROR, Message: "run-mcp could not encode its answer: " + err.Error()}})
	}
	_ = s.ch.Send(wire.Outbound{Msg: b, Protocol: s.protocol})
}

// forget drops a request given up on: its answer, if it still comes, is
// expected and no transport error. The set is bounded: a server that never
// answers thousands of timed-out requests must not grow it without end.
func (c *Conn) forget(st *connState, key string) {
	p := st.pending[key]
	delete(st.pending, key)
	if p != nil && p.sess != nil {
		p.sess.ch.Forget(key)
	}
	const maxLate = 4096
	if !st.late[key] {
		st.late[key] = true
		st.lateOrder = append(st.lateOrder, key)
		if len(st.lateOrder) > maxLate {
			delete(st.late, st.lateOrder[0])
			st.lateOrder = st.lateOrder[1:]
		}
	}
}

// cancelRequest tells the target that run-mcp no longer waits for the
// request key, and forgets it.
func (c *Conn) cancelRequest(st *connState, key, reason string) {
	p := st.pending[key]
	c.forget(st, key)
	if p == nil || p.sess == nil || p.sess.channelEnded {
		return
	}
	var id any
	_ = json.Unmarshal([]byte(key), &id)
	c.notify(p.sess, string(mcp.MethodNotificationCancelled), map[string]any{"requestId": id, "reason": reason})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings
	}
	return b
}

// targetError turns a JSON-RPC error answer into a TargetError.
func targetError(e *wire.RPCError) *TargetError {
	te := &TargetError{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		te.Data = e.Data
	}
	return te
}

// inbound is what a session's channel handed over: the answers to run-mcp's
// requests, the target's notifications and requests, its stdout noise, and
// at last the channel's end. The actor reads it straight from the channel's
// sink (loop), not through the mailbox.
type inbound struct {
	s  *session
	in wire.Inbound
}

func (m inbound) apply(c *Conn, st *connState) {
	s := m.s
	if s == nil {
		return
	}
	s.evidence.File(m.in)
	for _, r := range m.in.Redirects {
		s.noteRedirect(r)
	}
	for i := range m.in.Messages {
		c.message(st, s, &m.in.Messages[i])
	}
	for _, f := range m.in.Failed {
		if p := st.pending[f.Key]; p != nil && p.sess == s {
			delete(st.pending, f.Key)
			c.failPending(st, p, f.Err)
		}
	}
	if m.in.Closed {
		c.channelClosed(st, s, m.in.Err)
	}
}

func (c *Conn) message(st *connState, s *session, m *wire.Message) {
	switch {
	case m.IsRequest() || m.Invalid != "":
		c.targetRequest(st, s, m)
	case m.IsNotification():
		c.notification(st, s, m)
	case m.ID != nil:
		c.response(st, s, m)
	default:
		s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line,
			Message: fmt.Sprintf("an error without an id (%d %s): it answers no request", errCode(m.Error), errMessage(m.Error))})
	}
}

func errCode(e *wire.RPCError) int {
	if e == nil {
		return 0
	}
	return e.Code
}

func errMessage(e *wire.RPCError) string {
	if e == nil {
		return ""
	}
	return e.Message
}

// response hands an answer to whoever waits for it.
func (c *Conn) response(st *connState, s *session, m *wire.Message) {
	key := wire.IDKey(m.ID)
	p := st.pending[key]
	if p == nil || p.sess != s {
		if !st.late[key] {
			s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line,
				Message: "a response to a request run-mcp never sent (id " + key + ")"})
		}
		return
	}
	switch {
	case p.call != nil:
		c.callAnswered(st, p.call, m)
	case p.reply != nil:
		delete(st.pending, key)
		if m.Error != nil {
			p.reply <- answer{err: targetError(m.Error)}
		} else {
			p.reply <- answer{result: m.ResultBytes()}
		}
	case p.stream != nil:
		delete(st.pending, key)
		p.stream.answered(m)
	case p.refresh != nil:
		delete(st.pending, key)
		c.refreshPage(st, p.refresh, m)
	}
}

// notification files what the target announced, acts on what concerns
// run-mcp, and forwards it to the host.
func (c *Conn) notification(st *connState, s *session, m *wire.Message) {
	if s.modern && isChangeNotification(m.Method) && subscriptionID(m.Params) == "" {
		// Still delivered: the evidence is that it came, not what it said.
		s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line, EraRule: true,
			Message: fmt.Sprintf("an unsolicited %s on a 2026-07-28 connection: that era sends change notifications only on a subscriptions/listen stream, tagged with its subscription id", m.Method)})
	}
	switch m.Method {
	case string(mcp.MethodNotificationProgress):
		c.progress(st, m)
	case string(mcp.MethodNotificationToolsListChanged):
		st.tools = nil // the next checked call lists the tools afresh
	case mcp.MethodNotificationSubscriptionsAcknowledged:
		c.acknowledged(st, s, m)
	case mcp.MethodNotificationTasksStatus:
		s.tasks.onStatus(m.Params)
	case string(mcp.MethodNotificationCancelled):
		c.withdrawn(st, s, m.Params)
	}
	st.notes.add(m.Method, m.Params, m.Time)
	c.env.host.Notify(c.name, m.Method, m.Params)
}

// isChangeNotification names the notifications the 2026-07-28 era sends
// only on a subscriptions/listen stream.
func isChangeNotification(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationPromptsListChanged,
		mcp.MethodNotificationResourcesListChanged, mcp.MethodNotificationResourceUpdated:
		return true
	}
	return false
}

// subscriptionID reads params._meta's subscription id ("" when absent).
func subscriptionID(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	raw, ok := p.Meta[mcp.MetaKeySubscriptionID]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// progress files a notifications/progress under the call whose token it
// names; a target may keep sending progress after a call ended, which is
// logged but attributed to nothing.
func (c *Conn) progress(st *connState, m *wire.Message) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total"`
		Message  string          `json:"message"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		token = string(p.Token)
	}
	call := st.byToken[token]
	if call == nil || call.done {
		return
	}
	ev := ProgressEvent{At: m.Time.Sub(call.started), Progress: p.Progress, Total: p.Total, Message: p.Message}
	ev.AtMS = ev.At.Milliseconds()
	call.progress = append(call.progress, ev)
	select {
	case call.req.Events <- CallEvent{ID: call.id, Tag: call.req.Tag, Progress: &ev}:
	default: // a caller that cannot keep up misses an update; the outcome lists them all
	}
	if call.settling && !incomplete(ev) {
		c.finish(st, call, call.result, nil)
	}
}
