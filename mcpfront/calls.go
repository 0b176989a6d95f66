package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// tools/call is read on the reader of stdin (toolCall): the tool found,
// its arguments checked against its closed schema. call_mcp_primitive then
// has one path. The reader of stdin checks the request
// and hands it to its connection's actor (Conn.Start) with the front's one
// events channel; no goroutine waits for it. The actor streams its progress
// and, at the end, its outcome to that channel, where consume shapes the
// answer and writes it. Only a call that must first wait (its connection is
// being opened, auto_connect must open it) or that runs as a task prepares
// on a goroutine of its own; it then takes the same path.

// toolCall serves tools/call: the tool is found and its arguments checked
// against its closed schema on the reader's goroutine; call_mcp_primitive
// then goes to its connection without a goroutine of its own (calls.go),
// and every other tool runs on a goroutine (they connect, stop, read files).
func (f *front) toolCall(ctx context.Context, r *request) {
	p := &r.decoded
	if err := r.decodeErr; err != nil && !inMeta(err) {
		f.replyError(r, mcp.INVALID_PARAMS, "Invalid params: tools/call needs params {name, arguments}: "+wire.JSONWords(err))
		return
	}
	d, ok := f.tool(p.Name)
	if !ok {
		f.replyError(r, mcp.INVALID_PARAMS, f.unknownTool(p.Name))
		return
	}
	args, err := decodeArgs(p.Arguments)
	if err == nil {
		err = checkArgs(d.name, d.schema, args)
	}
	f.track(r)
	if err != nil {
		f.replyTool(r, errResult(err))
		return
	}
	if p.RequestState != nil {
		f.resume(r, d.name, args, *p.RequestState, p.InputResponses)
		return
	}
	if d.name == "call_mcp_primitive" {
		f.startPrimitive(ctx, r, args, rawArgsOf(p.Arguments))
		return
	}
	f.runHandler(ctx, r, d, args)
}

// inMeta says a decoding error is about _meta alone, which a call does not
// need whole: the rest of its params were decoded all the same.
func inMeta(err error) bool {
	var typ *json.UnmarshalTypeError
	return errors.As(err, &typ) && (typ.Field == "_meta" || strings.HasPrefix(typ.Field, "_meta."))
}

// decodeArgs reads a call's arguments with their numbers as the host wrote
// them (json.Number), for the schema check and the handlers.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(raw) == 0 || string(raw) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "arguments must be a JSON object: " + wire.JSONWords(err)}
	}
	return args, nil
}

// rawArgsOf keeps the tool's own arguments (call_mcp_primitive's
// arguments or args) exactly as the host wrote them, for the target.
func rawArgsOf(raw json.RawMessage) json.RawMessage {
	var a struct {
		Arguments json.RawMessage `json:"arguments"`
		Args      json.RawMessage `json:"args"`
	}
	_ = json.Unmarshal(raw, &a)
	if len(a.Arguments) > 0 && string(a.Arguments) != "null" {
		return a.Arguments
	}
	if string(a.Args) == "null" {
		return nil
	}
	return a.Args
}

// primitive is one call_mcp_primitive on its way through the engine.
type primitive struct {
	conn    *actors.Conn
	id      actors.CallID
	kind    string
	maxText int
	meta    bool // include_metadata
	after   bool // disconnect_after
	modern  bool // the host asked it in the 2026-07-28 era
	caps    mcp.ClientCapabilities

	mu sync.Mutex
	// req is the host request its answer goes to: the first, or a
	// 2026-07-28 host's retry; nil while a question it carries waits for
	// that retry (park.go).
	req *request
	// ended is an end that came while no request could carry it.
	ended *actors.CallEvent
	// done: its end was answered.
	done bool
}

// claim takes p's request to carry a question, if it is free: p has not
// ended and no question of its waits for the host's retry.
func (p *primitive) claim() *request {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.req
	if r == nil || p.done || r.isCancelled() {
		return nil
	}
	p.req = nil
	return r
}

func (p *primitive) isDone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// startPrimitive reads call_mcp_primitive's arguments and starts the call.
func (f *front) startPrimitive(ctx context.Context, r *request, a map[string]any, rawArgs json.RawMessage) {
	p := &primitive{kind: getStr(a, "type"), maxText: getInt(a, "max_text_length", 0), meta: getBool(a, "include_metadata"),
		after: getBool(a, "disconnect_after"), modern: r.modern, caps: r.caps, req: r}
	r.mu.Lock()
	r.prim = p
	r.mu.Unlock()
	task, err := taskArg(a)
	if err == nil {
		err = checkPrimitiveArgs(p.kind, a, task)
	}
	if err != nil {
		f.replyTool(r, errResult(err))
		return
	}
	call := actors.CallRequest{Kind: p.kind, Name: getStr(a, "name"), Args: rawArgs, Check: p.kind == actors.KindTool,
		Timeout: time.Duration(getInt(a, "timeout_ms", int(f.opts.Timeout.Milliseconds()))) * time.Millisecond,
		Tag:     p, Events: f.events, Task: task}
	name := getStr(a, "connection")
	if task == nil && p.kind != kindTask && getObj(a, "auto_connect") == nil {
		if c, ok := f.reg.ResolveNow(name); ok {
			f.send(p, c, call)
			return
		}
	}
	// It must wait for a connect first, or is about a task: on a
	// goroutine, which the host's cancel stops.
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	f.handlers.Add(1)
	go func() {
		defer f.handlers.Done()
		defer cancel()
		c, err := f.target(withRequest(ctx, r), a)
		if err != nil {
			f.replyTool(r, errResult(f.notConnected("call_mcp_primitive", err)))
			return
		}
		switch {
		case p.kind == kindTask && getBool(a, "cancel"):
			f.replyTool(r, f.cancelTask(ctx, c, call.Name))
		case p.kind == kindTask:
			f.runTaskResult(ctx, p, c, call.Name, call.Timeout)
		case task != nil:
			f.runTask(ctx, p, c, call)
		default:
			f.send(p, c, call)
		}
	}()
}

// checkPrimitiveArgs refuses what call_mcp_primitive's closed schema
// cannot say: arguments given twice, and task options that do not fit the
// type.
func checkPrimitiveArgs(kind string, a map[string]any, task *actors.TaskParams) error {
	if has(a, "arguments") && has(a, "args") {
		return &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "call_mcp_primitive takes arguments or its alias args, not both: " +
			"run-mcp will not guess which one you meant. Pass one of them"}
	}
	return checkTaskArgs(kind, a, task)
}

// target finds the connection a call names, connecting first when
// auto_connect says how and nothing suitable is live.
func (f *front) target(ctx context.Context, a map[string]any) (*actors.Conn, error) {
	name := getStr(a, "connection")
	c, err := f.reg.ResolveWait(ctx, name, true)
	auto := getObj(a, "auto_connect")
	// A connection still connecting is waited for by the call itself.
	if auto == nil || (err == nil && (c.Phase() == actors.PhaseLive || c.Phase() == actors.PhaseConnecting)) {
		return c, err
	}
	cfg, cerr := f.targetConfig(auto)
	if cerr != nil {
		return nil, cerr
	}
	if _, cerr := f.reg.Connect(ctx, name, cfg); cerr != nil {
		return nil, withEraHint(cerr)
	}
	return f.reg.Resolve(name, true)
}

// send hands the call to its connection, unless the host cancelled it
// meanwhile: then it never runs.
func (f *front) send(p *primitive, c *actors.Conn, call actors.CallRequest) {
	p.mu.Lock()
	p.conn = c
	gone := p.req != nil && p.req.isCancelled()
	p.mu.Unlock()
	if gone {
		return
	}
	id, err := c.Start(call)
	if err != nil {
		f.replyTool(p.carrier(), errResult(f.notConnected("call_mcp_primitive", err)))
		return
	}
	p.mu.Lock()
	p.id = id
	cancelled := p.req != nil && p.req.isCancelled()
	p.mu.Unlock()
	if cancelled {
		c.Cancel(id, nil)
	}
}

// runTask runs a task-augmented call, which waits for the task's result in
// a second request, on the preparing goroutine.
func (f *front) runTask(ctx context.Context, p *primitive, c *actors.Conn, call actors.CallRequest) {
	p.mu.Lock()
	p.conn = c
	p.mu.Unlock()
	call.Events, call.OnProgress = nil, func(ev actors.ProgressEvent) { f.relayProgress(p, &ev) }
	out, err := c.Call(ctx, call)
	f.finish(p, actors.CallEvent{Done: true, Outcome: out, Err: err})
}

// carrier is the request the primitive's answer goes to (nil while none).
func (p *primitive) carrier() *request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.req
}

// cancelled is the host's cancel of the request that carries p: the call
// stops at its server, and its end is never answered.
func (p *primitive) cancelled(f *front) {
	p.mu.Lock()
	c, id := p.conn, p.id
	p.mu.Unlock()
	if c != nil && id != 0 {
		c.Cancel(id, nil)
	}
}

func (r *request) isCancelled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancelled
}

// consume takes the events of every call_mcp_primitive in flight, in the
// order they happened: progress goes to the host as it comes, and each end
// is shaped and answered.
func (f *front) consume() {
	defer close(f.consumed)
	for ev := range f.events {
		p, _ := ev.Tag.(*primitive)
		if p == nil {
			continue
		}
		switch {
		case ev.Progress != nil:
			f.relayProgress(p, ev.Progress)
		case ev.Done:
			f.finish(p, ev)
		}
	}
}

// relayProgress forwards the target's progress to the host under the
// host's own token, when the host asked for progress; a host like Claude
// Code shows it streaming.
func (f *front) relayProgress(p *primitive, ev *actors.ProgressEvent) {
	r := p.carrier()
	if r == nil || r.token == nil || r.isCancelled() {
		return
	}
	params := map[string]any{"progressToken": r.token, "progress": ev.Progress}
	if ev.Total > 0 {
		params["total"] = ev.Total
	}
	if ev.Message != "" {
		params["message"] = ev.Message
	}
	_ = f.out.notify(string(mcp.MethodNotificationProgress), params)
}

// finish answers a call's end. A result the agent reads as the target sent
// it (nothing to intercept) is written at once; one to shape (media to save,
// text to cut) is shaped on a goroutine, so a big one does not hold the
// others.
func (f *front) finish(p *primitive, ev actors.CallEvent) {
	r, ok := f.ending(p, ev)
	if !ok {
		return
	}
	plain := ev.Err == nil && ev.Outcome != nil && !p.meta && p.maxText == 0 && p.kind == actors.KindTool && ev.Outcome.Task == nil &&
		!ev.Outcome.Unanswered && ev.Outcome.Tool == nil && f.plainResult(ev.Outcome.Raw)
	if plain && !p.after {
		f.reply(r, ev.Outcome.Raw)
		return
	}
	f.handlers.Add(1)
	go func() {
		defer f.handlers.Done()
		if plain {
			f.disconnectAfter(p) // before the answer: a status read after it sees it done
			f.reply(r, ev.Outcome.Raw)
			return
		}
		res := f.shapeEnd(p, ev)
		f.disconnectAfter(p)
		f.replyTool(r, res)
	}()
}

// ending marks p ended and returns the request its end answers; false when
// none can now (a question of a 2026-07-28 host's call waits for the host's
// retry, which then gets the end; or the host cancelled the call).
func (f *front) ending(p *primitive, ev actors.CallEvent) (*request, bool) {
	if p.modern {
		// Questions of a 2026-07-28 host ride on its calls' requests.
		f.parks.mu.Lock()
		defer f.parks.mu.Unlock()
	}
	p.mu.Lock()
	r := p.req
	if r == nil && p.modern && p.conn != nil {
		p.ended = &ev
		p.mu.Unlock()
		return nil, false
	}
	p.done = true
	p.mu.Unlock()
	if p.modern {
		f.gone(p)
	}
	return r, r != nil
}

// shapeEnd turns a call's end into what the agent reads.
func (f *front) shapeEnd(p *primitive, ev actors.CallEvent) (res *mcp.CallToolResult) {
	defer func() {
		if x := recover(); x != nil {
			f.logf("internal error in call_mcp_primitive: %v", x)
			res = errResult(fmt.Errorf("run-mcp hit an internal error in call_mcp_primitive (%v); the connection is kept. Please report it", x))
		}
	}()
	name := ""
	if p.conn != nil {
		name = p.conn.Name()
	}
	if ev.Err != nil {
		return errResult(f.notConnected("call_mcp_primitive", taskHint(ev.Err, name)))
	}
	out := ev.Outcome
	if out.Unanswered {
		return errResult(unanswered(out))
	}
	if out.Task != nil && p.kind == actors.KindTool && isCreateTask(out.Result()) {
		return taskCreated(out.Task, name)
	}
	kind := p.kind
	if kind == kindTask {
		kind = actors.KindTool // a task's result is its tool call's
	}
	res, stats, _, err := f.shape(kind, out, p.maxText)
	if err != nil {
		return errResult(err)
	}
	if out.Task != nil {
		res = withTaskLine(res, out.Task)
	}
	if p.meta {
		return withMetadata(res, out, stats)
	}
	return res
}

// unanswered is the error of a 2026-07-28 call whose server still requires
// input that nobody here could give.
func unanswered(out *actors.Outcome) error {
	return fmt.Errorf("the server still requires input that nobody here could give (its forms were declined and sampling refused: "+
		"the host run-mcp runs under did not declare them), so the call could not complete. The server's last answer, as it sent it: %s", clip(string(out.Result()), 2000))
}

// isCreateTask says a tool call's answer is the task it created, not a
// result (a call made with task and wait=false).
func isCreateTask(raw json.RawMessage) bool {
	var r struct {
		Task    json.RawMessage `json:"task"`
		Content json.RawMessage `json:"content"`
	}
	return json.Unmarshal(raw, &r) == nil && r.Task != nil && r.Content == nil
}

// disconnectAfter stops the connection after a call that asked for it; the
// record (stderr, exit) stays.
func (f *front) disconnectAfter(p *primitive) {
	if p.after && p.conn != nil {
		_, _ = f.reg.DisconnectAfter(context.Background(), p.conn.Name())
	}
}

// plainResult says, with one decode of its outline, that a tool result is
// one the agent reads as the target sent it: small enough that no text in
// it can be truncated or saved, a content array at its top level, and no
// item that could be media or an embedded resource.
func (f *front) plainResult(raw json.RawMessage) bool {
	if !f.ic.SmallPlain(len(raw)) {
		return false
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		ResultType        string          `json:"resultType"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Content == nil || r.ResultType == string(mcp.ResultTypeInputRequired) {
		return false
	}
	for _, c := range r.Content {
		if c.Type != "text" {
			return false
		}
	}
	return true
}
