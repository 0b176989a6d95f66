package mcpfront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/run-mcp/run-mcp/internal/didyoumean"
	"github.com/run-mcp/run-mcp/internal/spinread"
	"github.com/run-mcp/run-mcp/wire"
)

// hostIO serves the host's stdio with run-mcp's own loop and mcp-go's
// dispatch (HandleMessage). mcp-go's StdioServer reads each line on a fresh
// goroutine, decodes every message five or six times, queues tool calls
// behind a worker pool (which deadlocks with its defaults when handlers wait
// on the host), drops notifications when a channel fills, and keeps one
// session per process. Here every request runs on its own goroutine at
// once, each message is decoded once to route it, and the session's
// requests to the host (elicitation, sampling) are matched to their answers
// by id.
type hostIO struct {
	srv     *server.MCPServer
	out     *lockedWriter
	session *hostSession
	logf    func(string, ...any)
	tools   []string // run-mcp's own tool names, sorted, for UNKNOWN_TOOL
	// expect announces a connect_to_mcp or reconnect_to_mcp (tool) of the
	// connection conn in reading order, before its handler runs
	// concurrently, so a call read after it waits for it; the returned func
	// is called when the handler has returned.
	expect func(tool, conn string) (done func())
	wg     sync.WaitGroup
	// mu guards closed, so no request starts once serve is waiting for the
	// ones in flight.
	mu     sync.Mutex
	closed bool
	// inflight cancels each request in flight by its raw id. It is filled
	// in reading order, so a notifications/cancelled read after its request
	// always reaches it, even before mcp-go's handler has registered it.
	inflight map[string]*canceler
	// fast is call_mcp_primitive's handler, called without mcp-go's
	// dispatch for a plain call (fastcall.go); nil turns the fast path off.
	fast server.ToolHandlerFunc
	// pool runs the requests (workers.go); queues holds the calls of each
	// connection past the ones it runs at once (connqueue.go).
	pool   *workers
	queues connQueues
	// express starts a call_mcp_primitive on the express path
	// (express.go); nil turns it off.
	express func(args, token json.RawMessage, batch *wire.Batch, finish expressFinish) (cancel func(), ok bool)
	// batch holds express requests read together until the reader has
	// nothing more buffered (readLoop flushes it).
	batch wire.Batch
	// stdin is what serve reads, when it can be told a request is due.
	stdin *spinread.Reader
}

// maxHostMessage bounds one message from the host, as the target side does.
const maxHostMessage = 64 << 20

func (h *hostIO) serve(ctx context.Context, in io.Reader) error {
	ctx, cancel := context.WithCancel(h.srv.WithContext(ctx, h.session))
	defer cancel()
	if err := h.srv.RegisterSession(ctx, h.session); err != nil {
		return fmt.Errorf("register the host session: %w", err)
	}
	defer h.srv.UnregisterSession(ctx, h.session.SessionID())
	if h.pool == nil {
		h.pool = newWorkers()
	}
	h.queues.run = h.pool.run
	h.wg.Add(1)
	go h.forwardNotifications(ctx)
	// The read blocks on stdin, which a signal cannot interrupt; on a signal
	// serve returns and leaves the reader to end with the process.
	read := make(chan error, 1)
	go func() { read <- h.readLoop(ctx, in) }()
	var err error
	select {
	case err = <-read:
	case <-ctx.Done():
	}
	cancel()
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.session.failPending(errors.New("the host closed the connection"))
	h.cancelAll()
	h.wg.Wait()
	h.pool.stop() // no request starts once closed is set
	return err
}

// start counts a handler in, unless serve is already winding down.
func (h *hostIO) start() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	return true
}

func (h *hostIO) readLoop(ctx context.Context, in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = h.readLong(br, line)
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			h.dispatch(ctx, append([]byte(nil), msg...))
		}
		if br.Buffered() == 0 {
			h.batch.Flush() // before the next read may block
		}
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// readLong reads the rest of a line longer than the buffer, up to the cap.
// Past the cap it stops keeping the line: what it has and the rest are
// streamed through an idScan and dropped, so memory stays at the cap, and
// the sender is answered (answerOversized). It returns a nil line then.
func (h *hostIO) readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxHostMessage {
			return nil, h.discardLong(br, buf, chunk, err)
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

func (h *hostIO) discardLong(br *bufio.Reader, kept, chunk []byte, err error) error {
	var scan idScan
	scan.feed(kept)
	scan.feed(chunk)
	size := int64(len(kept) + len(chunk))
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		scan.feed(chunk)
		size += int64(len(chunk))
	}
	h.answerOversized(&scan, size)
	return err
}

// envelope routes a message: a response to our request, a notification, or
// a request to serve.
type hostEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (h *hostIO) dispatch(ctx context.Context, msg []byte) {
	var fr hostFrame
	if !fr.scan(msg) && json.Unmarshal(msg, &fr) != nil {
		// Params of another shape than a tools/call's: route on the
		// envelope alone.
		var env hostEnvelope
		if err := json.Unmarshal(msg, &env); err != nil {
			h.write(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error: "+err.Error(), nil))
			return
		}
		fr = hostFrame{ID: env.ID, Method: env.Method}
	}
	switch {
	case fr.Method == "" && len(fr.ID) > 0:
		h.batch.Flush()
		h.session.deliver(string(fr.ID), msg)
	case len(fr.ID) == 0:
		// Notifications (initialized, cancelled) are quick and ordered:
		// what was read before them is sent first.
		h.batch.Flush()
		if fr.Method == string(mcp.MethodNotificationCancelled) {
			h.cancelInflight(msg)
		}
		if resp := h.srv.HandleMessage(ctx, msg); resp != nil {
			h.write(resp)
		}
	default:
		h.request(ctx, &fr, msg)
	}
}

// request starts one request from the host on a goroutine of its own.
func (h *hostIO) request(ctx context.Context, fr *hostFrame, msg []byte) {
	done := func() {}
	var hc hostCall
	fast := false
	if fr.Method != string(mcp.MethodToolsCall) {
		h.batch.Flush()
	}
	if fr.Method == string(mcp.MethodToolsCall) {
		if h.fast != nil && h.session.Initialized() {
			hc, fast = fr.fastCall()
			if fast && h.express != nil && h.tryExpress(fr, hc.token) {
				return
			}
			fast = fast && fr.decodeArgs(&hc)
		}
		h.batch.Flush() // whatever this request does comes after what was read before it
		tool, conn, ok := fr.Params.Name, "", true
		if !fast {
			tool, conn, ok = parseToolCall(msg)
		}
		if ok && h.unknownTool(fr.ID, tool) {
			return
		}
		if !h.start() {
			return
		}
		if h.expect != nil && !fast { // call_mcp_primitive expects nothing
			done = h.expect(tool, conn)
		}
		if !fast {
			ctx = withHostCall(ctx, msg)
		}
	} else if !h.start() {
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	key := string(fr.ID)
	id := fr.ID
	cn := h.track(key, cancel)
	job := func() {
		defer h.wg.Done()
		defer done()
		defer func() {
			h.untrack(key, cn)
			cancel()
		}()
		if fast {
			h.serveFast(rctx, id, hc)
			return
		}
		if resp := h.srv.HandleMessage(rctx, msg); resp != nil {
			h.write(withID(resp, id))
		}
	}
	if fast {
		conn, _ := hc.args["connection"].(string)
		h.queues.add(conn, job)
		return
	}
	h.pool.run(job)
}

// cancelInflight cancels the request a notifications/cancelled names.
func (h *hostIO) cancelInflight(msg []byte) {
	var n struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || len(n.Params.RequestID) == 0 {
		return
	}
	h.mu.Lock()
	cn := h.inflight[string(n.Params.RequestID)]
	h.mu.Unlock()
	if cn != nil {
		cn.cancel()
	}
}

// canceler cancels one request in flight.
type canceler struct{ cancel func() }

// track files a request's cancel under its raw id; untrack removes it when
// it is still the one filed (a later request may reuse the id).
func (h *hostIO) track(key string, cancel func()) *canceler {
	cn := &canceler{cancel: cancel}
	h.mu.Lock()
	if h.inflight == nil {
		h.inflight = map[string]*canceler{}
	}
	h.inflight[key] = cn
	h.mu.Unlock()
	return cn
}

// cancelAll cancels every request in flight once the host is gone. Most
// end with serve's context anyway; an express call has no context, and
// without this serve waited for its target's answer, however long the tool
// ran.
func (h *hostIO) cancelAll() {
	h.mu.Lock()
	cns := make([]*canceler, 0, len(h.inflight))
	for _, cn := range h.inflight {
		cns = append(cns, cn)
	}
	h.mu.Unlock()
	for _, cn := range cns {
		h.mu.Lock()
		cancel := cn.cancel // set under mu once express returns (tryExpress)
		h.mu.Unlock()
		cancel()
	}
}

func (h *hostIO) untrack(key string, cn *canceler) {
	h.mu.Lock()
	if h.inflight[key] == cn {
		delete(h.inflight, key)
	}
	h.mu.Unlock()
}

// parseToolCall reads what routing needs of a tools/call: the tool, and the
// connection it names (connect_to_mcp's name, else its connection). ok is
// false when the message does not even have that shape; its handler then
// reports it.
func parseToolCall(msg []byte) (tool, conn string, ok bool) {
	var call struct {
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &call) != nil {
		return "", "", false
	}
	var args struct {
		Name       any `json:"name"`
		Connection any `json:"connection"`
	}
	_ = json.Unmarshal(call.Params.Arguments, &args) // another shape: the handler reports it
	conn, _ = args.Connection.(string)
	if call.Params.Name == "connect_to_mcp" {
		conn, _ = args.Name.(string)
	}
	return call.Params.Name, conn, true
}

// unknownTool answers a call of a tool run-mcp does not have with
// UNKNOWN_TOOL, a "did you mean" and the list of names.
func (h *hostIO) unknownTool(id json.RawMessage, name string) bool {
	if slices.Contains(h.tools, name) {
		return false
	}
	text := fmt.Sprintf("UNKNOWN_TOOL: run-mcp has no tool %q.", name)
	if s := didyoumean.Closest(name, h.tools); s != "" {
		text += fmt.Sprintf(" Did you mean %q?", s)
	}
	text += " Its tools: " + strings.Join(h.tools, ", ")
	h.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": mcp.INVALID_PARAMS, "message": text}})
	return true
}

// write sends the host an answer to one of its requests.
func (h *hostIO) write(msg any) {
	h.send(msg)
	h.requestDue()
}

// send writes one message to the host.
func (h *hostIO) send(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		h.logf("encode a message to the host: %v", err)
		return
	}
	if _, err := h.out.Write(append(b, '\n')); err != nil {
		h.logf("write to the host: %v", err)
	}
}

// requestDue tells the reader of stdin that an answer was just written: a
// host that calls in a loop sends its next request in a moment, which is
// then read as it lands (spinread). Only once nothing else is in flight:
// a host with calls outstanding is waiting for their answers, not about to
// send.
func (h *hostIO) requestDue() {
	if h.stdin == nil {
		return
	}
	h.mu.Lock()
	idle := len(h.inflight) == 0
	h.mu.Unlock()
	if idle {
		h.stdin.Expect(spinread.Window)
	}
}

// forwardNotifications writes what mcp-go queues for the session (its own
// notifications, if any) as frames, never dropping one.
func (h *hostIO) forwardNotifications(ctx context.Context) {
	defer h.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-h.session.notes:
			h.send(n)
		}
	}
}

// hostSession is the one host of this process, as mcp-go sees it.
type hostSession struct {
	out      *lockedWriter
	notes    chan mcp.JSONRPCNotification
	inited   atomic.Bool
	mu       sync.Mutex
	level    mcp.LoggingLevel
	info     mcp.Implementation
	caps     mcp.ClientCapabilities
	seq      atomic.Int64
	pending  map[string]chan []byte
	closed   bool
	closeErr error
}

func newHostSession(out *lockedWriter) *hostSession {
	return &hostSession{out: out, notes: make(chan mcp.JSONRPCNotification, 1000), pending: map[string]chan []byte{}}
}

var (
	_ server.SessionWithLogging     = (*hostSession)(nil)
	_ server.SessionWithClientInfo  = (*hostSession)(nil)
	_ server.SessionWithElicitation = (*hostSession)(nil)
	_ server.SessionWithSampling    = (*hostSession)(nil)
)

func (s *hostSession) SessionID() string                                   { return "stdio" }
func (s *hostSession) Initialize()                                         { s.inited.Store(true) }
func (s *hostSession) Initialized() bool                                   { return s.inited.Load() }
func (s *hostSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notes }

func (s *hostSession) SetLogLevel(l mcp.LoggingLevel) { s.mu.Lock(); s.level = l; s.mu.Unlock() }
func (s *hostSession) GetLogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.level
}
func (s *hostSession) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}
func (s *hostSession) SetClientInfo(i mcp.Implementation) { s.mu.Lock(); s.info = i; s.mu.Unlock() }
func (s *hostSession) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}
func (s *hostSession) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	s.caps = c
	s.mu.Unlock()
}

// RequestElicitation asks the host and waits for its answer.
func (s *hostSession) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := s.request(ctx, string(mcp.MethodElicitationCreate), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// RequestSampling asks the host's model and waits for its answer.
func (s *hostSession) RequestSampling(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	var res mcp.CreateMessageResult
	if err := s.request(ctx, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// request sends one request to the host and decodes its result into out.
func (s *hostSession) request(ctx context.Context, method string, params any, out any) error {
	id := "run-mcp-host-" + strconv.FormatInt(s.seq.Add(1), 10)
	key, _ := json.Marshal(id)
	ch := make(chan []byte, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return s.closeErr
	}
	s.pending[string(key)] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, string(key))
		s.mu.Unlock()
	}()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	if _, err := s.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send %s to the host: %w", method, err)
	}
	select {
	case <-ctx.Done():
		s.withdraw(id, context.Cause(ctx))
		return ctx.Err()
	case msg, ok := <-ch:
		if !ok {
			return s.closeErr
		}
		return decodeAnswer(method, msg, out)
	}
}

// withdraw tells the host that run-mcp no longer waits for its request id
// (the server withdrew the question, the call ended, the server went away),
// so a form the host shows can close; an answer that still comes is
// dropped.
func (s *hostSession) withdraw(id string, cause error) {
	reason := "run-mcp no longer needs the answer"
	if cause != nil {
		reason += ": " + cause.Error()
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": string(mcp.MethodNotificationCancelled),
		"params": map[string]any{"requestId": id, "reason": reason}})
	if err != nil {
		return
	}
	_, _ = s.out.Write(append(b, '\n'))
}

func decodeAnswer(method string, msg []byte, out any) error {
	var resp struct {
		Result json.RawMessage          `json:"result"`
		Error  *mcp.JSONRPCErrorDetails `json:"error"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil {
		return fmt.Errorf("the host's answer to %s is not JSON-RPC: %w", method, err)
	}
	if resp.Error != nil {
		return fmt.Errorf("the host answered %s with error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("the host's answer to %s does not fit: %w", method, err)
	}
	return nil
}

// deliver hands the host's answer to the request waiting for it.
func (s *hostSession) deliver(id string, msg []byte) {
	s.mu.Lock()
	ch := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ch != nil {
		ch <- msg
	}
}

// waiting reports whether one of our requests to the host has this id.
func (s *hostSession) waiting(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[id] != nil
}

// failPending releases every request still waiting when the host goes away.
func (s *hostSession) failPending(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.closeErr = true, err
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
}
