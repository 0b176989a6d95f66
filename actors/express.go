package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
	"github.com/run-mcp/run-mcp/wire"
)

// The express path runs the commonest call, a plain tools/call on a live
// stdio connection of an era before 2026-07-28, with no goroutine waiting
// for it and no trip through the actor's mailbox: the caller's goroutine
// registers the call under a lock and writes the request, and the read loop
// that reads the response hands it to the caller's function. Call costs two
// mailbox round trips and two goroutine hand-offs per call; at 20,000 calls
// in flight it also parks 20,000 goroutines whose stacks every collection
// scans. Everything else (a connection connecting, an open client-input
// round, HTTP, the 2026-07-28 era, tasks, prompts, resources) takes Call.

// ExpressRequest is a plain tool call.
type ExpressRequest struct {
	Name string
	// Args are the tool's arguments as the caller wrote them: a JSON object,
	// sent on as it is (compacted onto one line), or empty for {}.
	Args    json.RawMessage
	Timeout time.Duration // server time; 0 = DefaultCallTimeout
	// OnProgress: as CallRequest's.
	OnProgress func(ProgressEvent)
	// Batch, if set, holds the request until its owner flushes it.
	Batch *wire.Batch
	// KeepProgress records the call's progress in its Outcome (and waits
	// for a final update that trails the result) even with no OnProgress.
	KeepProgress bool
}

// expressTable holds a Conn's express calls in flight. Its lock, not the
// mailbox, guards them and the session they may use: the actor publishes
// the session after each operation (nil when express calls must not start)
// and, in the same critical section as any change, cancels what it must.
type expressTable struct {
	mu     sync.Mutex
	sess   *session // nil: no express call may start
	rounds int      // client-input rounds open: clocks are paused
	seq    int
	used   time.Time // when the last express call started
	calls  map[int]*expressCall
}

type expressCall struct {
	clock callState // id, budget, used/running/paused, wait, timer, rounds, token
	sess  *session
	key   string // the request id's transport key
	id    mcp.RequestId
	done  func(*Outcome, error)
	// what the Outcome needs
	stderrMark     int
	noise, errsBef int
	tracked        bool   // its progress is tracked (to relay it)
	onDone         func() // run once the call is finished, before done
}

// Express starts req and returns true; done is then called exactly once
// with the outcome, on the read loop that read the response (so it must not
// block for long) or on a goroutine of its own. False means the connection
// is not in a state for it (nothing was sent): use Call. cancel stops the
// call as a client's cancellation does (the server is told; done gets the
// CANCELLED error).
func (c *Conn) Express(req ExpressRequest, done func(*Outcome, error)) (cancel func(), ok bool) {
	return c.expressWith(req, nil, done)
}

// expressWith is Express; prepare, if set, sees the call once it is
// registered and before its request is sent.
func (c *Conn) expressWith(req ExpressRequest, prepare func(*expressCall), done func(*Outcome, error)) (cancel func(), ok bool) {
	args, ok := compactArgs(req.Args)
	if !ok {
		return nil, false
	}
	t := &c.fast
	t.mu.Lock()
	s := t.sess
	if s == nil || t.rounds > 0 {
		t.mu.Unlock()
		return nil, false
	}
	t.seq++
	seq := int(c.callSeq.Add(1))
	now := time.Now()
	t.used = now
	ec := &expressCall{sess: s, done: done,
		clock: callState{id: t.seq, method: string(mcp.MethodToolsCall), process: s.proc != nil, started: now, running: now,
			budget: callBudget(req.Timeout), token: "run-mcp-" + c.name + "-" + strconv.Itoa(seq)}}
	idStr := "run-mcp-" + strconv.FormatInt(s.reqSeq.Add(1), 10)
	ec.id = mcp.NewRequestId(idStr)
	ec.key = ec.id.String()
	if t.calls == nil {
		t.calls = map[int]*expressCall{}
	}
	// Everything the call's finishing reads is set before its timer can
	// fire or its answer come.
	if s.proc != nil {
		ec.stderrMark = s.proc.Stderr().Total()
	}
	ec.noise, ec.errsBef = s.evidence.Counts()
	if prepare != nil {
		prepare(ec)
		if after := ec.onDone; after != nil {
			ec.done = func(o *Outcome, err error) { after(); done(o, err) }
		}
	}
	if ec.tracked = req.OnProgress != nil || req.KeepProgress; ec.tracked {
		// The agent's express calls show no progress log: without a relay
		// their progress is not tracked at all.
		c.notes.trackProgress(ec.clock.token, now, req.OnProgress)
	}
	t.calls[ec.clock.id] = ec
	c.armExpress(ec)
	t.mu.Unlock()
	msg := expressMessage(idStr, ec.clock.token, req.Name, args)
	answer := func(resp *transport.JSONRPCResponse, err error) { c.expressAnswered(ec, resp, err) }
	var err error
	if req.Batch != nil {
		err = s.wt.SendBatched(req.Batch, ec.key, msg, answer)
	} else {
		err = s.wt.SendAsync(ec.key, msg, answer)
	}
	if err != nil {
		if c.fast.take(ec) {
			go c.expressFailed(ec, nil, err)
		}
	}
	return func() { c.cancelExpress(ec, nil) }, true
}

// compactArgs puts the arguments on one line (a newline inside them would
// end the frame); ok is false when they are not a JSON object.
func compactArgs(raw json.RawMessage) ([]byte, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), true
	}
	if raw[0] != '{' {
		return nil, false
	}
	if bytes.IndexAny(raw, "\r\n") < 0 && json.Valid(raw) {
		return raw, true // already one line: the host's frame, or json.Marshal's
	}
	var b bytes.Buffer
	b.Grow(len(raw))
	if json.Compact(&b, raw) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// expressMessage is the tools/call request, encoded as Call encodes it.
func expressMessage(id, token, name string, args []byte) []byte {
	msg := make([]byte, 0, 120+len(id)+len(token)+len(name)+len(args))
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = appendJSONString(msg, id)
	msg = append(msg, `,"method":"tools/call","params":{"_meta":{"progressToken":`...)
	msg = appendJSONString(msg, token)
	msg = append(msg, `},"arguments":`...)
	msg = append(msg, args...)
	msg = append(msg, `,"name":`...)
	msg = appendJSONString(msg, name)
	return append(msg, "}}"...)
}

// appendJSONString appends s as a JSON string, as json.Marshal writes it
// (the common case, printable ASCII with nothing to escape, without it).
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// take removes ec from the table, reporting whether it was still there:
// whoever takes it finishes it.
func (t *expressTable) take(ec *expressCall) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.calls[ec.clock.id] != ec {
		return false
	}
	delete(t.calls, ec.clock.id)
	ec.clock.finished = true
	if ec.clock.timer != nil {
		ec.clock.timer.Stop()
	}
	return true
}

// expressAnswered runs on the read loop with the response (or the reason the
// channel closed).
func (c *Conn) expressAnswered(ec *expressCall, resp *transport.JSONRPCResponse, err error) {
	if !c.fast.take(ec) {
		return // timed out or cancelled meanwhile: already answered
	}
	if err == nil && resp.Error != nil {
		err = &TargetError{Code: resp.Error.Code, Message: resp.Error.Message, Data: resp.Error.Data}
	}
	if err != nil {
		go c.expressFailed(ec, nil, err)
		return
	}
	if ec.tracked && c.notes.progressPending(ec.clock.token) {
		// The final progress update may trail the result: wait for it off
		// the read loop.
		go func() {
			c.notes.settle(ec.clock.token, progressSettle)
			ec.done(c.expressOutcome(ec, resp.Result), nil)
		}()
		return
	}
	ec.done(c.expressOutcome(ec, resp.Result), nil)
}

func (c *Conn) expressOutcome(ec *expressCall, raw json.RawMessage) *Outcome {
	now := time.Now()
	s := ec.sess
	out := &Outcome{Raw: raw, Token: ec.clock.token, Latency: now.Sub(ec.clock.started)}
	if ec.tracked {
		out.Progress = c.notes.untrack(ec.clock.token)
	}
	c.fast.mu.Lock()
	out.ServerTime, out.InputWait, out.Rounds = ec.clock.serverTime(now), ec.clock.wait, ec.clock.rounds
	c.fast.mu.Unlock()
	if s.init != nil {
		out.Protocol = s.init.ProtocolVersion
	}
	if s.proc != nil {
		out.stderr, out.stderrMark = s.proc.Stderr(), ec.stderrMark
	}
	out.Evidence = c.expressEvidence(ec)
	return out
}

// expressEvidence is what reached the evidence log during the call; the log
// is copied only when something did.
func (c *Conn) expressEvidence(ec *expressCall) wire.EvidenceSnapshot {
	noise, errs := ec.sess.evidence.Counts()
	if noise == ec.noise && errs == ec.errsBef {
		return wire.EvidenceSnapshot{}
	}
	now := ec.sess.evidence.Snapshot()
	out := wire.EvidenceSnapshot{NoiseTotal: noise - ec.noise, ErrorsTotal: errs - ec.errsBef}
	if k := out.NoiseTotal; k > 0 {
		out.Noise = now.Noise[max(len(now.Noise)-k, 0):]
	}
	if k := out.ErrorsTotal; k > 0 {
		out.Errors = now.Errors[max(len(now.Errors)-k, 0):]
	}
	return out
}

// expressFailed finishes a call that did not get a result, with the error
// Call would have returned: cause is why run-mcp stopped it (nil when the
// request itself failed with err).
func (c *Conn) expressFailed(ec *expressCall, cause, err error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	if cause != nil {
		cancel(cause)
		err = context.Canceled
	}
	defer cancel(nil)
	out := c.expressOutcome(ec, nil)
	ec.done(out, c.callFailed(ctx, ec.sess, err, ec.stderrMark))
}

// cancelExpress stops ec for cause (nil: the client cancelled it), tells the
// server, and finishes it.
func (c *Conn) cancelExpress(ec *expressCall, cause error) {
	if !c.fast.take(ec) {
		return
	}
	c.stopExpress(ec, cause)
}

func (c *Conn) stopExpress(ec *expressCall, cause error) {
	told := cause
	if cause == nil {
		cause = context.Canceled
	}
	go c.expressFailed(ec, cause, nil)
	// After the answer: telling a server that stopped reading may wait.
	if ec.sess.wt.Forget(ec.key) {
		ec.sess.sendCancelled(ec.id, told)
	}
}

// cancelAllExpress stops every express call in flight (a reconnect, a
// disconnect, run-mcp shutting down); cause says why to each.
func (c *Conn) cancelAllExpress(cause func(ec *expressCall) error) {
	t := &c.fast
	t.mu.Lock()
	calls := make([]*expressCall, 0, len(t.calls))
	for id, ec := range t.calls {
		delete(t.calls, id)
		ec.clock.finished = true
		if ec.clock.timer != nil {
			ec.clock.timer.Stop()
		}
		calls = append(calls, ec)
	}
	t.mu.Unlock()
	for _, ec := range calls {
		go c.stopExpress(ec, cause(ec))
	}
}

// armExpress sets ec's timer for what is left of its budget; t.mu is held.
func (c *Conn) armExpress(ec *expressCall) {
	call := &ec.clock
	if call.budget <= 0 {
		return
	}
	call.timer = time.AfterFunc(max(call.budget-call.used, 0), func() {
		t := &c.fast
		t.mu.Lock()
		if t.calls[call.id] != ec || call.running.IsZero() {
			t.mu.Unlock()
			return
		}
		if call.used+time.Since(call.running) < call.budget {
			c.armExpress(ec)
			t.mu.Unlock()
			return
		}
		delete(t.calls, call.id)
		call.finished = true
		t.mu.Unlock()
		c.stopExpress(ec, &TimeoutError{Method: call.method, Budget: call.budget, InputWait: call.wait, words: c.env.words, process: call.process})
	})
}

// publish lets express calls start on st's session, or stops them starting;
// it runs on the actor after every operation.
func (t *expressTable) publish(st *connState) {
	var s *session
	if st.phase == PhaseLive && st.sess != nil && st.sess.wt != nil && st.sess.tr != nil &&
		(st.sess.init == nil || !mcp.IsModernProtocol(st.sess.init.ProtocolVersion)) {
		s = st.sess
	}
	t.mu.Lock()
	t.sess = s
	t.mu.Unlock()
}

// expressRoundOpened stops the clocks of the express calls while a
// client-input round is open (and no express call starts meanwhile);
// expressRoundClosed restarts them when the last one closes, recording r.
func (c *Conn) expressRoundOpened(now time.Time) {
	t := &c.fast
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rounds++
	if t.rounds > 1 {
		return
	}
	for _, ec := range t.calls {
		call := &ec.clock
		if call.running.IsZero() {
			continue
		}
		call.used += now.Sub(call.running)
		call.running, call.paused = time.Time{}, now
		if call.timer != nil {
			call.timer.Stop()
		}
	}
}

func (c *Conn) expressRoundClosed(now time.Time, r Round) {
	t := &c.fast
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.rounds > 0 {
		t.rounds--
	}
	for _, ec := range t.calls {
		call := &ec.clock
		call.rounds = append(call.rounds, r)
		if t.rounds > 0 || !call.running.IsZero() {
			continue
		}
		if !call.paused.IsZero() {
			call.wait += now.Sub(call.paused)
		}
		call.running, call.paused = now, time.Time{}
		c.armExpress(ec)
	}
}

// lastUsed is the later of other (the actor's record) and the start of the
// last express call.
func (t *expressTable) lastUsed(other time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.used.After(other) {
		return t.used
	}
	return other
}

// inFlight counts the express calls running.
func (t *expressTable) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

// ToolReady says, from the cached tool list alone, that name is a tool of
// this server and args has every argument it requires; false means the
// caller should check the slow way (refreshing the list, saying what is
// wrong).
func (c *Conn) ToolReady(name string, args json.RawMessage) bool {
	set := c.tools.Load()
	if set == nil {
		return false
	}
	required, ok := set.requiredOf(name)
	if !ok {
		return false
	}
	if len(required) == 0 {
		return true
	}
	if len(required) > 64 {
		return false
	}
	// A key written with escapes does not match here: Call checks it.
	var found uint64
	if !jsonscan.Object(args, func(k string, _ []byte) bool {
		for i, r := range required {
			if k == r {
				found |= 1 << i
			}
		}
		return true
	}) {
		return false
	}
	return found == 1<<len(required)-1
}
