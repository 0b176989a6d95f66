package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/spinread"
)

// defaultWriteTimeout bounds a write to a target that stopped reading its
// stdin; without it the write would hold the stdin lock forever and every
// later call would queue behind it.
const defaultWriteTimeout = 30 * time.Second

// ClosedError is what pending and later requests fail with once the channel
// to the target is gone. Reason is why (EOF, an oversized message, …).
type ClosedError struct{ Reason error }

func (e *ClosedError) Error() string {
	if e.Reason == nil || errors.Is(e.Reason, io.EOF) || errors.Is(e.Reason, os.ErrClosed) {
		return "Connection closed"
	}
	return "Connection closed: " + e.Reason.Error()
}

func (e *ClosedError) Unwrap() []error { return []error{transport.ErrTransportClosed, e.Reason} }

// Transport is mcp-go's client transport over a target's pipes, with our own
// reader: every stdout line that is not JSON-RPC is kept as noise rather than
// silently skipped, JSON that is not JSON-RPC is a transport error, and a
// message over MaxMessage closes the channel with its size.
type Transport struct {
	reader   io.Reader
	writer   io.WriteCloser
	evidence *Evidence

	// writing is the write lock, a channel so a writer can give up waiting
	// for it (a write blocked on a target that stopped reading holds it until
	// its deadline).
	writing chan struct{}
	// rest is the unwritten tail of a message whose write was cut by its
	// deadline; the next write finishes it before its own message, so the
	// target never reads half a line glued to the next one. Guarded by
	// the write lock.
	rest []byte
	// queue holds the frames SendAsync could not write at once, in order;
	// draining says a goroutine is writing them (async.go).
	queueMu  sync.Mutex
	queue    []queued
	draining bool

	pendingMu sync.Mutex
	pending   map[string]waiter
	cancelled map[string]bool

	handlerMu  sync.RWMutex
	onNotify   func(mcp.JSONRPCNotification)
	onRequest  transport.RequestHandler
	requestCtx context.Context

	// inbound are the target's requests being handled (an elicitation a
	// person is answering), by inboundKey of their id, so the target's
	// notifications/cancelled can end the handler (inbound.go).
	inboundMu sync.Mutex
	inbound   map[string]*inboundRequest

	// due is the reader, when it can be told an answer is due on it.
	due expecter

	started  atomic.Bool
	modern   atomic.Bool
	done     chan struct{}
	doneErr  error
	handlers sync.WaitGroup
	lines    int
}

var _ transport.BidirectionalInterface = (*Transport)(nil)

// NewTransport returns a transport that reads messages from r (the child's
// stdout) and writes to w (its stdin). Noise and transport errors go to ev.
// It is r's one reader: r is closed, if it is an io.Closer, once reading
// ends.
func NewTransport(r io.Reader, w io.WriteCloser, ev *Evidence) *Transport {
	due, _ := r.(expecter)
	return &Transport{reader: r, writer: w, evidence: ev, due: due,
		pending: map[string]waiter{}, cancelled: map[string]bool{},
		done: make(chan struct{}), requestCtx: context.Background(), writing: make(chan struct{}, 1)}
}

// expecter is a reader that can be told a message is due (spinread.Reader).
type expecter interface{ Expect(window time.Duration) }

// answerDue tells the reader that a request was just written, so its answer
// is due: a fast server's is then read as it lands, without the wake-up of
// a parked thread (spinread). Only for a request alone in flight: with more,
// answers keep coming without a wait, and trying between them would take a
// CPU from a server that is busy answering.
func (t *Transport) answerDue() {
	if t.due == nil {
		return
	}
	t.pendingMu.Lock()
	alone := len(t.pending) == 1
	t.pendingMu.Unlock()
	if alone {
		t.due.Expect(spinread.Window)
	}
}

// Start begins reading. ctx is handed to handlers of requests from the
// target; cancel it to release a handler waiting on a person.
func (t *Transport) Start(ctx context.Context) error {
	if t.started.Swap(true) {
		return nil
	}
	t.handlerMu.Lock()
	t.requestCtx = ctx
	t.handlerMu.Unlock()
	go t.readLoop()
	return nil
}

// SetModern tells the transport the connection speaks the 2026-07-28 era,
// whose rules it then enforces as evidence: the server sends no requests to
// the client and no change notifications outside a subscriptions/listen
// stream.
func (t *Transport) SetModern(modern bool) { t.modern.Store(modern) }

// Done is closed when the read loop ended; Err then says why.
func (t *Transport) Done() <-chan struct{} { return t.done }

// Err is why the channel closed (nil while open).
func (t *Transport) Err() error {
	select {
	case <-t.done:
		return t.doneErr
	default:
		return nil
	}
}

// Wait blocks until the read loop and every request handler have returned.
func (t *Transport) Wait() {
	<-t.done
	t.handlers.Wait()
}

func (t *Transport) readLoop() {
	br := bufio.NewReaderSize(t.reader, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readMessage(br, MaxMessage)
		if len(line) > 0 {
			t.lines++
			t.dispatch(line)
		}
		if err != nil {
			break
		}
	}
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		t.lines++
		t.evidence.addError(TransportError{Time: time.Now(), Line: t.lines, Message: err.Error()})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The Process's deadline once its server was gone: everything the
		// server wrote has been read.
		err = io.EOF
	}
	if c, ok := t.reader.(io.Closer); ok {
		_ = c.Close() // the transport is the stdout's one reader
	}
	t.doneErr = err
	close(t.done)
	t.failPending()
}

func (t *Transport) failPending() {
	t.pendingMu.Lock()
	waiters := make([]waiter, 0, len(t.pending))
	for id, w := range t.pending {
		delete(t.pending, id)
		waiters = append(waiters, w)
	}
	t.pendingMu.Unlock()
	for _, w := range waiters { // outside the lock: a function may send
		w.fail(t.doneErr)
	}
}

// envelope is the part of a message needed to route it. Result aliases the
// line instead of copying it: a 20 MB result is then held once, not twice.
type envelope struct {
	JSONRPC string                   `json:"jsonrpc"`
	ID      *mcp.RequestId           `json:"id"`
	Method  *string                  `json:"method"`
	Params  aliasRaw                 `json:"params"`
	Result  aliasRaw                 `json:"result"`
	Error   *mcp.JSONRPCErrorDetails `json:"error"`
}

// aliasRaw keeps the bytes of a JSON value without copying. Safe because the
// line it points into is owned by one message and never reused.
type aliasRaw []byte

func (a *aliasRaw) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

func (t *Transport) dispatch(line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return
	}
	now := time.Now()
	if trimmed[0] != '{' {
		t.notJSONRPC(line, now, "a JSON value that is not a JSON-RPC message object")
		return
	}
	env, err := decodeEnvelope(trimmed)
	if err != nil {
		t.notJSONRPC(line, now, "JSON that does not fit a JSON-RPC message: "+err.Error())
		return
	}
	if problem := env.problem(); problem != "" {
		t.evidence.addError(TransportError{Time: now, Line: t.lines, Message: problem + ": " + excerpt(line)})
		return
	}
	switch {
	case env.Method != nil && env.ID == nil:
		t.notification(*env.Method, env.Params)
	case env.Method != nil:
		t.request(*env.ID, *env.Method, env.Params)
	default:
		t.response(env, now)
	}
}

// notJSONRPC files a line under noise (not JSON at all) or transport errors
// (JSON, but not a JSON-RPC message).
func (t *Transport) notJSONRPC(line []byte, now time.Time, reason string) {
	if !json.Valid(line) {
		t.evidence.addNoise(Noise{Time: now, Line: t.lines, Text: string(line)})
		return
	}
	t.evidence.addError(TransportError{Time: now, Line: t.lines, Message: reason + ": " + excerpt(line)})
}

func (env *envelope) problem() string {
	switch {
	case env.JSONRPC != "2.0":
		return `a message without "jsonrpc": "2.0"`
	case env.Method != nil && *env.Method == "":
		return "a message with an empty method"
	case env.Method == nil && env.ID == nil:
		return "a message with neither a method nor an id"
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return "a response with neither a result nor an error"
	}
	return ""
}

func excerpt(line []byte) string {
	if len(line) > 200 {
		return string(line[:200]) + "…"
	}
	return string(line)
}

func (t *Transport) notification(method string, params aliasRaw) {
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &n.Params); err != nil {
			t.evidence.addError(TransportError{Time: time.Now(), Line: t.lines,
				Message: fmt.Sprintf("notification %s with params that are not an object: %v", method, err)})
			return
		}
	}
	if t.modern.Load() && isChangeNotification(method) {
		if _, ok := n.Params.Meta[mcp.MetaKeySubscriptionID]; !ok {
			// Still delivered: the evidence is that it came, not what it said.
			t.evidence.addError(TransportError{Time: time.Now(), Line: t.lines, EraRule: true,
				Message: fmt.Sprintf("an unsolicited %s on a 2026-07-28 connection: that era sends change notifications only on a subscriptions/listen stream, tagged with its subscription id", method)})
		}
	}
	if method == string(mcp.MethodNotificationCancelled) {
		t.withdrawInbound(params)
	}
	t.handlerMu.RLock()
	h := t.onNotify
	t.handlerMu.RUnlock()
	if h != nil {
		h(n)
	}
}

func (t *Transport) request(id mcp.RequestId, method string, params aliasRaw) {
	t.handlerMu.RLock()
	h, ctx := t.onRequest, t.requestCtx
	t.handlerMu.RUnlock()
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method}
	if len(params) > 0 {
		req.Params = json.RawMessage(params)
	}
	if h == nil {
		t.respond(*transport.NewJSONRPCErrorResponse(id, mcp.METHOD_NOT_FOUND, "run-mcp does not answer "+method, nil))
		return
	}
	if t.modern.Load() {
		t.evidence.addError(TransportError{Time: time.Now(), Line: t.lines, EraRule: true,
			Message: fmt.Sprintf("a server-to-client request (%s) on a 2026-07-28 connection: on stdio that era forbids server-to-client requests (ask with an input_required result instead); run-mcp answered it with an error", method)})
		t.respond(*transport.NewJSONRPCErrorResponse(id, mcp.METHOD_NOT_FOUND,
			"run-mcp does not answer "+method+" on a 2026-07-28 connection: return an input_required result instead", nil))
		return
	}
	// Off the read loop: a handler may wait minutes for a person.
	in := t.trackInbound(ctx, id)
	t.handlers.Add(1)
	go func() {
		defer t.handlers.Done()
		defer t.untrackInbound(in)
		resp, err := h(in.ctx, req)
		if in.withdrawn() {
			return // the server cancelled it: it expects no answer
		}
		if err != nil {
			resp = transport.NewJSONRPCErrorResponse(id, mcp.INTERNAL_ERROR, err.Error(), nil)
		}
		if resp != nil {
			t.respond(*resp)
		}
	}()
}

func (t *Transport) respond(resp transport.JSONRPCResponse) {
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	_ = t.write(context.Background(), b)
}

func (t *Transport) response(env envelope, now time.Time) {
	key := env.ID.String()
	t.pendingMu.Lock()
	w, ok := t.pending[key]
	delete(t.pending, key)
	wasCancelled := t.cancelled[key]
	delete(t.cancelled, key)
	t.pendingMu.Unlock()
	if !ok {
		if !wasCancelled {
			t.evidence.addError(TransportError{Time: now, Line: t.lines,
				Message: "a response to a request run-mcp never sent (id " + key + ")"})
		}
		return
	}
	w.answer(&transport.JSONRPCResponse{JSONRPC: env.JSONRPC, ID: *env.ID,
		Result: json.RawMessage(env.Result), Error: env.Error})
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

// SendRequest writes req and waits for its response.
func (t *Transport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	select {
	case <-t.done:
		return nil, &ClosedError{Reason: t.doneErr}
	default:
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", req.Method, err)
	}
	key := req.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	t.pendingMu.Lock()
	t.pending[key] = waiter{ch: ch}
	t.pendingMu.Unlock()
	select {
	case <-t.done:
		t.forget(key, false)
		return nil, &ClosedError{Reason: t.doneErr}
	default:
	}
	if err := t.write(ctx, b); err != nil {
		t.forget(key, false)
		return nil, err
	}
	t.answerDue()
	select {
	case resp, ok := <-ch:
		if !ok {
			return nil, &ClosedError{Reason: t.doneErr}
		}
		return resp, nil
	case <-ctx.Done():
		t.forget(key, true)
		return nil, ctx.Err()
	}
}

// forget drops a pending request; a cancelled one's late answer is expected
// and is not reported as a transport error.
func (t *Transport) forget(key string, cancelled bool) {
	t.pendingMu.Lock()
	delete(t.pending, key)
	if cancelled {
		t.cancelled[key] = true
	}
	t.pendingMu.Unlock()
}

// SendNotification writes a notification.
func (t *Transport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	select {
	case <-t.done:
		return &ClosedError{Reason: t.doneErr}
	default:
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encode %s notification: %w", n.Method, err)
	}
	return t.write(ctx, b)
}

type deadliner interface{ SetWriteDeadline(time.Time) error }

// write sends one message as one line under the write lock, bounded by a
// deadline so a target that stopped reading cannot wedge the channel.
func (t *Transport) write(ctx context.Context, msg []byte) error {
	msg = append(msg, '\n')
	deadline := time.Now().Add(defaultWriteTimeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	if err := t.lockWrite(ctx, deadline, len(msg)); err != nil {
		return err
	}
	defer t.unlockWrite()
	return t.writeLocked(msg, deadline)
}

// writeLocked writes msg under the write lock, by deadline. The deadline is
// cleared again before the lock is given up: it stays on the pipe
// otherwise, and once it passes, every later write on the pipe, tryWrite's
// included, fails at once with "i/o timeout" on a target that is reading
// fine.
func (t *Transport) writeLocked(msg []byte, deadline time.Time) error {
	if d, ok := t.writer.(deadliner); ok {
		_ = d.SetWriteDeadline(deadline)
		defer func() { _ = d.SetWriteDeadline(time.Time{}) }()
	}
	if len(t.rest) > 0 {
		n, err := t.writer.Write(t.rest)
		t.rest = t.rest[n:]
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("the server is not reading its stdin: %d bytes of an earlier message are still waiting to be written: %w", len(t.rest), err)
		}
		if err != nil {
			return &ClosedError{Reason: fmt.Errorf("write to the server's stdin: %w", err)}
		}
		t.rest = nil
	}
	n, err := t.writer.Write(msg)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if n > 0 && n < len(msg) {
			t.rest = append([]byte(nil), msg[n:]...) // msg's buffer goes back to its caller
		}
		return fmt.Errorf("the server is not reading its stdin: a write of %d bytes did not complete: %w", len(msg), err)
	}
	if err != nil {
		return &ClosedError{Reason: fmt.Errorf("write to the server's stdin: %w", err)}
	}
	return nil
}

// lockWrite takes the write lock, giving up at deadline or when ctx ends:
// another write holding it is blocked on a target not reading its stdin.
func (t *Transport) lockWrite(ctx context.Context, deadline time.Time, size int) error {
	select {
	case t.writing <- struct{}{}:
		return nil
	default:
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	select {
	case t.writing <- struct{}{}:
		return nil
	case <-wait.C:
	case <-ctx.Done():
	}
	return fmt.Errorf("the server is not reading its stdin: a write of %d bytes waited for an earlier one that has not completed: %w",
		size, os.ErrDeadlineExceeded)
}

func (t *Transport) unlockWrite() { <-t.writing }

// SetNotificationHandler sets the one notification handler. It runs on the
// read loop, so it must not block.
func (t *Transport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.handlerMu.Lock()
	t.onNotify = h
	t.handlerMu.Unlock()
}

// SetRequestHandler sets the handler of requests from the target.
func (t *Transport) SetRequestHandler(h transport.RequestHandler) {
	t.handlerMu.Lock()
	t.onRequest = h
	t.handlerMu.Unlock()
}

// Close closes the target's stdin. The read loop ends when the target's
// stdout does, which the Process owner brings about by stopping it.
//
// It does not take the write lock: a write blocked on a target that stopped
// reading would hold it until its deadline, and closing the pipe is what
// ends that write (with an error) at once.
func (t *Transport) Close() error {
	err := t.writer.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// GetSessionId is empty: stdio has no session id.
func (t *Transport) GetSessionId() string { return "" }
