package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Kinds of primitives a call reaches.
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindPrompt   = "prompt"
)

// CallRequest is one call of a tool, read of a resource or get of a prompt.
type CallRequest struct {
	Kind    string
	Name    string // tool or prompt name, or resource URI
	Args    map[string]any
	Timeout time.Duration // server time; 0 = DefaultCallTimeout
	// OnProgress, if set, is called with each progress update of the call as
	// it arrives (on the target's read loop: it must not block for long).
	OnProgress func(ProgressEvent)
	// Task runs a tool call as a task (2025-11-25; see tasks.go).
	Task *TaskParams
}

// Outcome is what a call produced and how it went.
type Outcome struct {
	Raw        json.RawMessage // the result as the target sent it
	Latency    time.Duration
	ServerTime time.Duration
	InputWait  time.Duration
	Rounds     []Round
	Progress   []ProgressEvent
	Token      string
	Evidence   wire.EvidenceSnapshot
	Protocol   string
	// Task is the task a task-augmented call created (nil when the server
	// answered with a plain result).
	Task *TaskInfo

	stderr     *wire.Ring
	stderrMark int
}

// HasProcess says the call ran on a process run-mcp started (not over HTTP),
// so stderr and stdout evidence exist.
func (o *Outcome) HasProcess() bool { return o.stderr != nil }

// StderrDuring returns what the server wrote to stderr from the start of the
// call. Stderr is drained by a goroutine of its own, so lines written just
// before the answer may still be in flight: it waits until no new line has
// arrived for settle (at most ten times that).
func (o *Outcome) StderrDuring(settle time.Duration) wire.Excerpt {
	if o.stderr == nil {
		return wire.Excerpt{}
	}
	for range 10 {
		n := o.stderr.Total()
		time.Sleep(settle)
		if o.stderr.Total() == n {
			break
		}
	}
	return o.stderr.Since(o.stderrMark)
}

// StderrFromStart is StderrDuring from the first line the process wrote,
// for a one-shot call, whose server lived for that call alone.
func (o *Outcome) StderrFromStart(settle time.Duration) wire.Excerpt {
	from := *o
	from.stderrMark = 0
	return from.StderrDuring(settle)
}

// progressSettle bounds the wait for a final progress update that trails
// the result; it is paid only by calls whose progress stopped short.
const progressSettle = 50 * time.Millisecond

// Call runs req on the live session. The request itself runs on the
// caller's goroutine, off the mailbox, so status and stderr answer meanwhile.
// A tool call with Task runs as a task (callTask).
func (c *Conn) Call(ctx context.Context, req CallRequest) (*Outcome, error) {
	if req.Task != nil && req.Kind == KindTool {
		return c.callTask(ctx, req)
	}
	if out, err, ok := c.callExpress(ctx, req); ok {
		return out, err
	}
	return c.call(ctx, req)
}

// callExpress runs a plain tool call on the express path and waits for it
// there: one hand-off (the read loop's answer) instead of two mailbox round
// trips and the response channel. ok is false when the connection is not in
// a state for it (nothing was sent).
func (c *Conn) callExpress(ctx context.Context, req CallRequest) (out *Outcome, err error, ok bool) {
	if req.Kind != KindTool || ctx.Err() != nil {
		return nil, nil, false
	}
	args, merr := json.Marshal(argsOrEmpty(req.Args))
	if merr != nil {
		return nil, nil, false
	}
	type result struct {
		out *Outcome
		err error
	}
	done := make(chan result, 1)
	_, ok = c.expressWith(ExpressRequest{Name: req.Name, Args: args, Timeout: req.Timeout, OnProgress: req.OnProgress, KeepProgress: true},
		func(ec *expressCall) {
			// The caller's cancellation, with its cause, as Call treats it.
			stop := context.AfterFunc(ctx, func() { c.cancelExpress(ec, context.Cause(ctx)) })
			ec.onDone = func() { stop() }
		},
		func(o *Outcome, e error) { done <- result{o, e} })
	if !ok {
		return nil, nil, false
	}
	r := <-done
	return r.out, r.err, true
}

func (c *Conn) call(ctx context.Context, req CallRequest) (*Outcome, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var call *callState
	budget := callBudget(req.Timeout)
	s, err := c.withLive(ctx, req.Timeout, func(st *connState, waited time.Duration) {
		if budget > 0 && waited > 0 {
			// A wait for a connect in progress came out of the budget.
			budget = max(budget-waited, time.Millisecond)
		}
		seq := int(c.callSeq.Add(1))
		call = &callState{id: seq, method: methodOf(req.Kind), started: time.Now(), budget: budget, cancel: cancel,
			token: "run-mcp-" + c.name + "-" + strconv.Itoa(seq)}
		call.process = st.sess.proc != nil
		st.calls[call.id] = call
		if st.openRounds > 0 {
			call.paused = call.started
		} else {
			call.running = call.started
			c.arm(call)
		}
	})
	if err != nil {
		return nil, err
	}
	return c.runCall(ctx, s, call, req)
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

func (c *Conn) notLiveError(st *connState) error {
	why := st.why
	if why == "" {
		why = "it is " + string(st.phase)
	}
	return coded(CodeNoConnection, "connection %q is not running: %s. Reconnect to start it again (reconnect_to_mcp; from a shell, run-mcp reconnect --session <name>)",
		c.name, strings.TrimSuffix(why, "."))
}

func (c *Conn) runCall(ctx context.Context, s *session, call *callState, req CallRequest) (*Outcome, error) {
	stderrMark := 0
	if s.proc != nil {
		stderrMark = s.proc.Stderr().Total()
	}
	evBefore := s.evidence.Snapshot()
	c.notes.trackProgress(call.token, call.started, req.OnProgress)
	raw, err := s.send(ctx, req, call.token)
	if err == nil {
		c.notes.settle(call.token, progressSettle)
	}
	out := &Outcome{Raw: raw, Token: call.token, Progress: c.notes.untrack(call.token)}
	if s.init != nil {
		out.Protocol = s.init.ProtocolVersion
	}
	if err == nil && req.Task != nil && req.Kind == KindTool {
		if w, ok := createdTask(raw); ok {
			info := s.tasks.update(w, req.Name, "created")
			out.Task = &info
		}
	}
	_ = c.do(context.WithoutCancel(ctx), func(st *connState) {
		now := time.Now()
		call.finished = true
		if call.timer != nil {
			call.timer.Stop()
		}
		out.ServerTime, out.InputWait, out.Rounds = call.serverTime(now), call.wait, call.rounds
		if !call.paused.IsZero() {
			out.InputWait += now.Sub(call.paused)
		}
		delete(st.calls, call.id)
	})
	out.Latency = time.Since(call.started)
	if s.proc != nil {
		out.stderr, out.stderrMark = s.proc.Stderr(), stderrMark
	}
	out.Evidence = evidenceSince(evBefore, s.evidence.Snapshot())
	if err != nil {
		return out, c.callFailed(ctx, s, err, stderrMark)
	}
	return out, nil
}

// evidenceSince keeps what arrived after before was taken.
func evidenceSince(before, now wire.EvidenceSnapshot) wire.EvidenceSnapshot {
	out := wire.EvidenceSnapshot{NoiseTotal: now.NoiseTotal - before.NoiseTotal, ErrorsTotal: now.ErrorsTotal - before.ErrorsTotal}
	if len(now.Noise) > len(before.Noise) {
		out.Noise = now.Noise[len(before.Noise):]
	}
	if len(now.Errors) > len(before.Errors) {
		out.Errors = now.Errors[len(before.Errors):]
	}
	return out
}

// callFailed turns a failed request into the error a user needs: why the
// call stopped (timeout, reconnect, cancel) or how the server died, with its
// stderr.
func (c *Conn) callFailed(ctx context.Context, s *session, err error, stderrMark int) error {
	cause := context.Cause(ctx)
	var timeout *TimeoutError
	var interrupted *InterruptedError
	var callErr *CallError
	switch {
	case errors.As(cause, &timeout):
		ce := &CallError{Reason: cause.Error(), Err: cause}
		if s.proc != nil {
			r := s.report(stderrMark)
			ce.Report = &r
		}
		return ce
	case errors.As(cause, &interrupted):
		return &CallError{Reason: cause.Error(), Err: cause}
	case errors.As(cause, &callErr):
		return callErr
	case errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded):
		return &CallError{Code: CodeCancelled, Reason: "the client cancelled the call; the server was told (notifications/cancelled)", Err: err}
	}
	var closed *wire.ClosedError
	if errors.As(err, &closed) || errors.Is(err, transport.ErrTransportClosed) {
		if tooLarge(err) {
			return &CallError{Reason: tooLargeReason(err), Err: err}
		}
		if s.proc != nil && s.closing() {
			select {
			case <-s.proc.Done():
			case <-time.After(lateStderr):
			}
		}
		r := s.report(0)
		if s.proc != nil && s.wt != nil && s.wt.Err() != nil && !diedByItself(s.proc) {
			return &CallError{Reason: "During the call " + stdoutClosed(s.proc.Pid()) + ": run-mcp can no longer reach it and stops it. " +
				"Something in the server closed or redirected its stdout (the protocol channel)", Report: &r, Err: err}
		}
		return &CallError{Reason: "The server died during the call: " + reasonOf(err), Report: &r, Err: err}
	}
	return err
}

// send issues the request. Legacy connections get the raw result exactly as
// the target sent it; modern ones go through the client, which drives
// input_required rounds.
func (s *session) send(ctx context.Context, req CallRequest, token string) (json.RawMessage, error) {
	meta := map[string]any{"progressToken": token}
	var method string
	params := map[string]any{"_meta": meta}
	switch req.Kind {
	case KindTool:
		method = string(mcp.MethodToolsCall)
		params["name"], params["arguments"] = req.Name, argsOrEmpty(req.Args)
		if req.Task != nil {
			task := map[string]any{}
			if req.Task.TTL > 0 {
				task["ttl"] = req.Task.TTL.Milliseconds()
			}
			params["task"] = task
		}
	case KindTaskResult:
		method = string(mcp.MethodTasksResult)
		params["taskId"] = req.Name
	case KindPrompt:
		method = string(mcp.MethodPromptsGet)
		params["name"] = req.Name
		if len(req.Args) > 0 {
			params["arguments"] = stringArgs(req.Args)
		}
	case KindResource:
		method = string(mcp.MethodResourcesRead)
		params["uri"] = req.Name
	default:
		return nil, coded(CodeInvalidArgument, "type must be tool, resource or prompt, not %q", req.Kind)
	}
	if s.init != nil && mcp.IsModernProtocol(s.init.ProtocolVersion) {
		if req.Task != nil || req.Kind == KindTaskResult {
			return nil, coded(CodeInvalidArgument, "tasks are a 2025-11-25 feature (task-augmented requests) and this connection speaks %s, "+
				"where tasks are an extension run-mcp does not speak; connect with protocol legacy to call the tool as a task", s.init.ProtocolVersion)
		}
		return s.sendModern(ctx, req, meta)
	}
	return s.raw(ctx, method, params)
}

func argsOrEmpty(a map[string]any) map[string]any {
	if a == nil {
		return map[string]any{}
	}
	return a
}

func stringArgs(a map[string]any) map[string]string {
	out := make(map[string]string, len(a))
	for k, v := range a {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}

// raw sends one request with our own id and returns the result bytes. A
// cancelled request is followed by notifications/cancelled.
func (s *session) raw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.rawWithID(ctx, mcp.NewRequestId(fmt.Sprintf("run-mcp-%d", s.reqSeq.Add(1))), method, params)
}

// rawWithID is raw with an id the caller chose (a listen stream's id is its
// subscription id).
func (s *session) rawWithID(ctx context.Context, id mcp.RequestId, method string, params any) (json.RawMessage, error) {
	resp, err := s.sendRaw(ctx, id, method, params)
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, &TargetError{Code: resp.Error.Code, Message: resp.Error.Message, Data: resp.Error.Data}
	}
	return resp.Result, nil
}

// sendRaw sends one request past the client and waits for its response; a
// cancelled request is followed by notifications/cancelled.
func (s *session) sendRaw(ctx context.Context, id mcp.RequestId, method string, params any) (*transport.JSONRPCResponse, error) {
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params,
		Header: s.standardHeaders(method, params)})
	if err != nil && ctx.Err() != nil {
		s.sendCancelled(id, context.Cause(ctx))
	}
	return resp, err
}

// standardHeaders are the Mcp-Method and Mcp-Name headers 2026-07-28
// requires on a Streamable HTTP request. mcp-go's client adds them to what
// it sends; a raw request goes past it, so it gets them here (nil on a
// legacy connection and over stdio, which has no headers).
func (s *session) standardHeaders(method string, params any) http.Header {
	if !s.cfg.IsHTTP() || s.init == nil || !mcp.RequiresStandardHeaders(s.init.ProtocolVersion) {
		return nil
	}
	encoded, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	h := http.Header{}
	for name, value := range mcp.StandardHeaders(s.init.ProtocolVersion, mcp.MCPMethod(method), encoded) {
		h.Set(name, value)
	}
	return h
}

func (s *session) sendCancelled(id mcp.RequestId, cause error) {
	reason := "cancelled by the client"
	if cause != nil {
		reason = firstLine(cause.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}}}})
}

// sendModern lets the client drive the input_required rounds and returns
// the last round's result as the server sent it (the client's typed value
// would lose keys it does not know and every digit past float64's).
func (s *session) sendModern(ctx context.Context, req CallRequest, meta map[string]any) (json.RawMessage, error) {
	m := &mcp.Meta{ProgressToken: meta["progressToken"]}
	ctx, rounds := withCapture(withModernCall(ctx))
	var v any
	var err error
	switch req.Kind {
	case KindTool:
		v, err = s.client.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: req.Name, Arguments: argsOrEmpty(req.Args), Meta: m}})
	case KindPrompt:
		v, err = s.client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: req.Name, Arguments: stringArgs(req.Args)}})
	default:
		v, err = s.client.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: req.Name}})
	}
	if err != nil {
		if raw := rounds.last(); raw != nil && errors.Is(err, errInputUnanswerable) {
			// The call completes with what the server last said: it still
			// requires input (the rounds record what was asked and answered).
			return raw, nil
		}
		return nil, err
	}
	if raw := rounds.last(); raw != nil {
		return raw, nil
	}
	return json.Marshal(v)
}

// TargetError is a JSON-RPC error the target answered with.
type TargetError struct {
	Code    int
	Message string
	Data    any
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("the server answered with error %d: %s", e.Code, e.Message)
}
