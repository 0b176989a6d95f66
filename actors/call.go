package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Kinds of primitives a call reaches.
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindPrompt   = "prompt"
)

// CallID names one call of a connection.
type CallID int64

// CallRequest is one call of a tool, read of a resource or get of a prompt.
type CallRequest struct {
	Kind string
	Name string // tool or prompt name, or resource URI
	// Args are the tool's or prompt's arguments as the caller wrote them: a
	// JSON object (nil: none). They reach the server as they are.
	Args    json.RawMessage
	Timeout time.Duration // server time; 0 = DefaultCallTimeout
	// Task runs a tool call as a task (2025-11-25; see tasks.go). Only Call
	// runs task-augmented calls.
	Task *TaskParams
	// Check checks a tool call against the server's tool list before it
	// is sent: an unknown name (after listing the tools afresh once) is
	// UNKNOWN_TOOL, a missing required argument INVALID_ARGUMENT.
	Check bool
	// Tag is the caller's own reference for the call, handed back in its
	// events and in the questions it carries to the host.
	Tag any
	// Events receives the call's progress and, last, its end (exactly one
	// event with Done). Start needs it; Call makes its own.
	Events chan<- CallEvent
	// OnProgress, for Call, is called with each progress update on the
	// caller's goroutine.
	OnProgress func(ProgressEvent)
}

// CallEvent is what happened to a call started with Start.
type CallEvent struct {
	ID       CallID
	Tag      any
	Progress *ProgressEvent // an update the server streamed
	// Done marks the call's end; Outcome says how it went (also on most
	// errors), Err why it failed.
	Done    bool
	Outcome *Outcome
	Err     error
}

// Outcome is what a call produced and how it went.
type Outcome struct {
	// Raw is the result as the target sent it; nil when Tool holds the
	// result (Result finds the bytes then).
	Raw json.RawMessage
	// Tool is the result decoded as a tool result, for a big answer the
	// channel decoded as one where it read it (wire.Message.Tool): a front
	// end that would decode Raw with wire.ParseToolResult takes it instead.
	Tool    *mcp.CallToolResult
	answer  *wire.Message
	Latency time.Duration
	// ServerTime and InputWait split Latency when run-mcp could tell them
	// apart; Shared says a question that named no call paused this one
	// beside others, so the split is not known (see Round.Shared).
	ServerTime time.Duration
	InputWait  time.Duration
	Shared     bool
	Rounds     []Round
	Progress   []ProgressEvent
	Token      string
	Evidence   wire.EvidenceSnapshot
	Protocol   string
	// Unanswered says a 2026-07-28 server still required input nobody here
	// could give: Raw is its last input_required result.
	Unanswered bool
	// Task is the task a task-augmented call created (nil when the server
	// answered with a plain result).
	Task *TaskInfo

	conn       *Conn
	stderrMark int
}

// Result is the result as the target sent it: Raw, or, when the channel
// decoded it as a tool result (Tool), the bytes found again in the line it
// came on, which costs a decode of that line.
func (o *Outcome) Result() json.RawMessage {
	if o.answer != nil {
		return o.answer.ResultBytes()
	}
	return o.Raw
}

// HasProcess says the call ran on a process run-mcp started (not over HTTP),
// so stderr and stdout evidence exist.
func (o *Outcome) HasProcess() bool { return o.conn != nil }

// StderrDuring returns what the server wrote to stderr from the start of the
// call. Stderr is drained by a goroutine of its own, so lines written just
// before the answer may still be in the pipe: it waits until the drain has
// read them (SyncStderr), or, where that cannot be told, until no new line
// has arrived for settle (at most ten times that).
func (o *Outcome) StderrDuring(settle time.Duration) wire.Excerpt {
	return o.stderrSince(o.stderrMark, settle)
}

// StderrFromStart is StderrDuring from the first line the process wrote,
// for a one-shot call, whose server lived for that call alone.
func (o *Outcome) StderrFromStart(settle time.Duration) wire.Excerpt {
	return o.stderrSince(0, settle)
}

func (o *Outcome) stderrSince(mark int, settle time.Duration) wire.Excerpt {
	if o.conn == nil {
		return wire.Excerpt{}
	}
	ctx := context.Background()
	if o.conn.SyncStderr(ctx) {
		ex, _, _ := o.conn.Stderr(ctx, mark, 0)
		return ex
	}
	// Where the drain cannot say it has caught up: wait for the lines to
	// stop coming for settle, a few times at most.
	var ex wire.Excerpt
	for range 10 {
		ex, _, _ = o.conn.Stderr(ctx, mark, 0)
		time.Sleep(settle)
		if next, _, _ := o.conn.Stderr(ctx, mark, 0); next.Total == ex.Total {
			return next
		}
	}
	ex, _, _ = o.conn.Stderr(ctx, mark, 0)
	return ex
}

// progressSettle bounds the wait for a final progress update that trails
// the result; it is paid only by calls whose progress stopped short.
const progressSettle = 50 * time.Millisecond

// Start hands req to the connection and returns at once: the call's events
// arrive on req.Events. No goroutine waits for it meanwhile.
func (c *Conn) Start(req CallRequest) (CallID, error) {
	if req.Events == nil {
		return 0, errors.New("actors: Start needs an Events channel")
	}
	id := CallID(c.callSeq.Add(1))
	call := &callState{id: id, req: req, method: methodOf(req.Kind), started: time.Now(), budget: callBudget(req.Timeout),
		token: "run-mcp-" + c.name + "-" + strconv.FormatInt(int64(id), 10)}
	select {
	case c.mailbox <- startCall{call: call}:
		return id, nil
	case <-c.stopped:
		return 0, coded(CodeNoConnection, "connection %q has been closed", c.name)
	}
}

// Cancel stops call id: a call not sent yet never is; a running one is
// cancelled at the server (notifications/cancelled). Its end comes as its
// Done event, with cause (nil: the client cancelled it).
func (c *Conn) Cancel(id CallID, cause error) {
	c.post(cancelCall{id: id, cause: cause})
}

// Call runs req and waits for it. A tool call with Task runs as a task
// (callTask). ctx's end cancels the call.
func (c *Conn) Call(ctx context.Context, req CallRequest) (*Outcome, error) {
	if req.Task != nil && req.Kind == KindTool {
		return c.callTask(ctx, req)
	}
	return c.call(ctx, req)
}

func (c *Conn) call(ctx context.Context, req CallRequest) (*Outcome, error) {
	if err := ctx.Err(); err != nil {
		return nil, coded(CodeCancelled, "the call was cancelled before it ran; nothing was sent")
	}
	events := make(chan CallEvent, 16)
	req.Events = events
	id, err := c.Start(req)
	if err != nil {
		return nil, err
	}
	done := ctx.Done()
	for {
		select {
		case ev := <-events:
			if ev.Progress != nil && req.OnProgress != nil {
				req.OnProgress(*ev.Progress)
			}
			if ev.Done {
				return ev.Outcome, ev.Err
			}
		case <-done:
			c.Cancel(id, cancelCause(ctx))
			done = nil // its Done event follows
		}
	}
}

// cancelCause is why the caller's context ended, when it said (a session
// closed, a deadline of run-mcp's own); nil for a plain cancel.
func cancelCause(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return nil
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return &CallError{Code: CodeCancelled, Reason: "the caller's deadline passed; the server was told (notifications/cancelled)"}
	}
	var ce *CallError
	var te *TimeoutError
	if errors.As(cause, &ce) || errors.As(cause, &te) {
		return cause
	}
	return &CallError{Code: CodeCancelled, Reason: cause.Error() + "; the server was told (notifications/cancelled)", Err: cause}
}

// methodOf names the request a call kind sends.
func methodOf(kind string) string {
	switch kind {
	case KindPrompt:
		return string(mcp.MethodPromptsGet)
	case KindResource:
		return string(mcp.MethodResourcesRead)
	case KindTaskResult:
		return string(mcp.MethodTasksResult)
	}
	return string(mcp.MethodToolsCall)
}

// startCall is the message that hands the actor a call.
type startCall struct{ call *callState }

func (m startCall) apply(c *Conn, st *connState) {
	call := m.call
	st.lastUsed = call.started
	c.arm(call)
	switch st.phase {
	case PhaseConnecting:
		call.waitingConnect = true
		st.calls[call.id] = call
	case PhaseLive:
		st.calls[call.id] = call
		c.dispatch(st, call)
	default:
		c.finish(st, call, nil, c.notLiveError(st))
	}
}

// startWaiting sends the calls that waited for the connect now live.
func (c *Conn) startWaiting(st *connState) {
	for _, call := range st.calls {
		if call.waitingConnect {
			call.waitingConnect = false
			c.dispatch(st, call)
		}
	}
}

// failWaiting fails the calls that waited for a connect that failed.
func (c *Conn) failWaiting(st *connState, err error) {
	for _, call := range st.calls {
		if call.waitingConnect {
			c.finish(st, call, nil, err)
		}
	}
}

// dispatch checks a call when asked and sends it.
func (c *Conn) dispatch(st *connState, call *callState) {
	if call.req.Check && call.req.Kind == KindTool && !call.checked {
		if st.tools == nil || (!st.tools.has(call.req.Name) && !call.relisted) {
			call.relisted = true
			c.awaitTools(st, call)
			return
		}
		if err := st.tools.check(call.req.Name, call.req.Args); err != nil {
			c.finish(st, call, nil, err)
			return
		}
		call.checked = true
	}
	c.sendCall(st, call, nil, nil)
}

// callParams are the params of a call's request.
type callParams struct {
	Meta           map[string]any             `json:"_meta,omitempty"`
	Name           string                     `json:"name,omitempty"`
	Arguments      json.RawMessage            `json:"arguments,omitempty"`
	URI            string                     `json:"uri,omitempty"`
	TaskID         string                     `json:"taskId,omitempty"`
	Task           *taskParam                 `json:"task,omitempty"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	RequestState   json.RawMessage            `json:"requestState,omitempty"`
}

// taskParam is a task-augmented call's params.task.
type taskParam struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// sendCall sends call's request: the first, or a 2026-07-28 retry that
// answers the server's input requests.
func (c *Conn) sendCall(st *connState, call *callState, responses map[string]json.RawMessage, state json.RawMessage) {
	s := st.sess
	if call.sess == nil {
		call.sess = s
		if s.proc != nil {
			s.takeStderr(st.stderr)
			call.stderrMark = st.stderr.Total()
		}
		call.noise, call.errs = s.evidence.Counts()
		st.byToken[call.token] = call
	}
	p := callParams{Meta: s.meta(c.env.clientInfo, map[string]any{"progressToken": call.token}), InputResponses: responses, RequestState: state}
	name := call.req.Name
	switch call.req.Kind {
	case KindTool:
		p.Name, p.Arguments = call.req.Name, argsOrEmpty(call.req.Args)
		if call.req.Task != nil {
			if s.modern {
				c.finish(st, call, nil, coded(CodeInvalidArgument, "tasks are a 2025-11-25 feature (task-augmented requests) and this connection speaks %s, "+
					"where tasks are an extension run-mcp does not speak; connect with protocol legacy to call the tool as a task", s.protocol))
				return
			}
			p.Task = &taskParam{}
			if ttl := call.req.Task.TTL; ttl > 0 {
				ms := ttl.Milliseconds()
				p.Task.TTL = &ms
			}
		}
	case KindPrompt:
		p.Name = call.req.Name
		if len(call.req.Args) > 0 {
			p.Arguments = stringArgs(call.req.Args)
		}
	case KindResource:
		p.URI = call.req.Name
	case KindTaskResult:
		if s.modern {
			c.finish(st, call, nil, coded(CodeInvalidArgument, "tasks are a 2025-11-25 feature and this connection speaks %s", s.protocol))
			return
		}
		p.TaskID, name = call.req.Name, ""
	default:
		c.finish(st, call, nil, coded(CodeInvalidArgument, "type must be tool, resource or prompt, not %q", call.req.Kind))
		return
	}
	var headers map[string]string
	if s.http != nil && s.modern && call.req.Kind == KindTool && st.tools != nil {
		if b, err := json.Marshal(p); err == nil {
			headers = st.tools.paramHeaders(call.req.Name, b)
		}
	}
	key, err := c.sendWith(st, s, &pending{method: call.method, call: call}, p, name, headers)
	if err != nil {
		c.finish(st, call, nil, c.closedDuringCall(st, call, err))
		return
	}
	call.key, call.sent, call.responses, call.state = key, true, responses, state
}

func argsOrEmpty(a json.RawMessage) json.RawMessage {
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}")
	}
	return a
}

// stringArgs turns a prompt's arguments into the strings prompts/get takes:
// a string as it is, any other value as its JSON text.
func stringArgs(raw json.RawMessage) json.RawMessage {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return raw
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(v)
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// cancelCall is the message that stops a call for its caller.
type cancelCall struct {
	id    CallID
	cause error
}

func (m cancelCall) apply(c *Conn, st *connState) {
	call := st.calls[m.id]
	if call == nil {
		return
	}
	err := m.cause
	if err == nil {
		reason := "the client cancelled the call; the server was told (notifications/cancelled)"
		if call.key == "" {
			reason = "the client cancelled the call before it was sent; nothing reached the server"
		}
		err = &CallError{Code: CodeCancelled, Reason: reason}
	}
	c.stopCall(st, call, err, "cancelled by the client")
}

// stopCall ends a call run-mcp gives up on: the server is told when the
// request is out, then the call ends with err.
func (c *Conn) stopCall(st *connState, call *callState, err error, reason string) {
	if call.key != "" {
		c.cancelRequest(st, call.key, reason)
	}
	c.finish(st, call, nil, err)
}

// finish ends a call: its clock stops, its rounds and progress are read, and
// its end goes to whoever waits for it. Calling it again does nothing.
func (c *Conn) finish(st *connState, call *callState, raw json.RawMessage, err error) {
	if call.done {
		return
	}
	call.done = true
	if call.authCancel != nil {
		call.authCancel()
	}
	now := time.Now()
	c.stopClock(call, now)
	delete(st.calls, call.id)
	if call.key != "" {
		delete(st.pending, call.key)
	}
	delete(st.byToken, call.token)
	for _, r := range st.rounds {
		r.release(c, st, call)
	}
	out := &Outcome{Raw: raw, Token: call.token, Latency: now.Sub(call.started), ServerTime: call.used, InputWait: call.wait,
		Shared: call.shared, Rounds: call.rounds, Progress: call.progress, Unanswered: call.unanswered, Task: call.task}
	if err == nil && raw == nil && call.answer != nil {
		out.Tool, out.answer = call.answer.Tool, call.answer
	}
	if s := call.sess; s != nil {
		out.Protocol = s.protocol
		if s.proc != nil {
			out.conn, out.stderrMark = c, call.stderrMark
		}
		out.Evidence = evidenceSince(s.evidence.Snapshot(), call.noise, call.errs)
	}
	call.req.Events <- CallEvent{ID: call.id, Tag: call.req.Tag, Done: true, Outcome: out, Err: err}
}

// evidenceSince keeps what reached the evidence log after the counts noise
// and errs (the log keeps its first entries, so the newest are its tail).
func evidenceSince(now wire.EvidenceSnapshot, noise, errs int) wire.EvidenceSnapshot {
	out := wire.EvidenceSnapshot{NoiseTotal: now.NoiseTotal - noise, ErrorsTotal: now.ErrorsTotal - errs}
	if k := out.NoiseTotal; k > 0 && len(now.Noise) > noise {
		out.Noise = now.Noise[noise:]
	}
	if k := out.ErrorsTotal; k > 0 && len(now.Errors) > errs {
		out.Errors = now.Errors[errs:]
	}
	return out
}

// failAll ends every call of the connection with the error why gives it.
func (c *Conn) failAll(st *connState, why func(*callState) error) {
	for _, call := range st.calls {
		err := why(call)
		if call.key != "" && call.sess != nil && !call.sess.channelEnded {
			c.cancelRequest(st, call.key, firstLine(err.Error()))
		}
		c.finish(st, call, nil, err)
	}
}

// callAnswered is a call's response: its result, an error, or (2026-07-28)
// a request for input, answered by a new round.
func (c *Conn) callAnswered(st *connState, call *callState, m *wire.Message) {
	delete(st.pending, call.key)
	call.key = ""
	if m.Error != nil {
		c.finish(st, call, nil, targetError(m.Error))
		return
	}
	if call.sess.modern && inputRequired(m) {
		c.openModernRound(st, call, m.ResultBytes())
		return
	}
	if call.req.Task != nil {
		if w, ok := createdTask(m.ResultBytes()); ok {
			info := call.sess.tasks.update(w, call.req.Name, "created")
			call.task = &info
		}
	}
	if m.Tool != nil {
		call.answer = m
	}
	if last := len(call.progress) - 1; last >= 0 && incomplete(call.progress[last]) {
		// The final progress update may trail the result.
		call.settling, call.result = true, m.Result
		time.AfterFunc(progressSettle, func() { c.post(settled{call: call}) })
		return
	}
	c.finish(st, call, m.Result, nil)
}

// settled ends a call whose result waited for a trailing progress update.
type settled struct{ call *callState }

func (m settled) apply(c *Conn, st *connState) {
	if m.call.settling {
		c.finish(st, m.call, m.call.result, nil)
	}
}

// inputRequired says a result asks for input (resultType input_required).
func inputRequired(m *wire.Message) bool {
	if m.Tool != nil {
		return m.Tool.ResultType == mcp.ResultTypeInputRequired
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(m.Result, &r) == nil && r.ResultType == string(mcp.ResultTypeInputRequired)
}

// callRequestFailed ends a call whose request the channel could not deliver.
func (c *Conn) callRequestFailed(st *connState, call *callState, err error) {
	call.key = ""
	retried, err := c.authorizeCall(st, call, err)
	if retried {
		return
	}
	if authFailed(err) {
		c.finish(st, call, nil, &CallError{Reason: err.Error(), Err: err})
		return
	}
	c.finish(st, call, nil, c.closedDuringCall(st, call, err))
}

// closedDuringCall is the error of a call whose channel failed it.
func (c *Conn) closedDuringCall(st *connState, call *callState, err error) error {
	var closed *wire.ClosedError
	if errors.As(err, &closed) {
		return c.diedDuringCall(st, call)
	}
	return &CallError{Reason: "The request could not be delivered: " + err.Error(), Err: err}
}

// diedDuringCall is the error of a call whose server went away: how it
// ended, with its stderr from the start of the call.
func (c *Conn) diedDuringCall(st *connState, call *callState) error {
	s := call.sess
	if s == nil {
		s = st.sess
	}
	if s == nil {
		return &CallError{Reason: "The server went away before the call was sent"}
	}
	if tooLarge(s.chanErr) {
		return &CallError{Reason: tooLargeReason(s.chanErr), Err: s.chanErr}
	}
	r := s.report(st.stderr, 0)
	if s.proc != nil && s.channelEnded && !diedByItself(s.proc) {
		return &CallError{Reason: "During the call " + stdoutClosed(s.proc.Pid()) + ": run-mcp can no longer reach it and stops it. " +
			"Something in the server closed or redirected its stdout (the protocol channel)", Report: &r, Err: s.chanErr}
	}
	return &CallError{Reason: "The server died during the call: " + reasonOf(&wire.ClosedError{Reason: s.chanErr}), Report: &r, Err: s.chanErr}
}

func (c *Conn) notLiveError(st *connState) error {
	why := st.why
	if why == "" {
		why = "it is " + string(st.phase)
	}
	return coded(CodeNoConnection, "connection %q is not running: %s. Reconnect to start it again (reconnect_to_mcp; from a shell, run-mcp reconnect --session <name>)",
		c.name, strings.TrimSuffix(why, "."))
}

// TargetError is a JSON-RPC error the server answered a request with.
type TargetError struct {
	Code    int
	Message string
	Data    any
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("the server answered with error %d: %s", e.Code, e.Message)
}
