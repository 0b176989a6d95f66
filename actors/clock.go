package actors

import (
	"context"
	"encoding/json"
	"time"

	"github.com/run-mcp/run-mcp/wire"
)

// callState is one call, owned by the Conn actor from Start to its end. Its
// clock counts server time only: it is paused while a client-input round
// that pauses it is open, so a form a person takes a minute to answer cannot
// trip a 30-second timeout.
type callState struct {
	id      CallID
	req     CallRequest
	method  string // tools/call, resources/read, prompts/get or tasks/result
	sess    *session
	key     string // the key of its request awaiting an answer ("" when none is)
	token   string // the progress token it offers
	started time.Time
	budget  time.Duration // callBudget: never 0
	used    time.Duration // server time before running
	running time.Time     // zero while paused or not started
	paused  time.Time     // when the current pause began
	wait    time.Duration // client-input wait so far
	timer   *time.Timer
	// holds counts the open rounds that pause this call.
	holds int
	// shared says a round that named no call paused it beside others: its
	// wait may not have been its own (see Round.Shared).
	shared   bool
	rounds   []Round
	progress []ProgressEvent
	// stderrMark and noise/errs are where the stderr ring and the evidence
	// log stood when it was sent, so its outcome shows what came after.
	stderrMark   int
	noise, errs  int
	task         *TaskInfo
	unanswered   bool
	declined     bool            // a question of it was declined because nobody here can answer
	lastRequired json.RawMessage // the last input_required of a 2026-07-28 call

	// sent says its request went out; responses and state are what its
	// latest request answered (2026-07-28), so an authorization can send it
	// again as it was.
	sent      bool
	responses map[string]json.RawMessage
	state     json.RawMessage
	// authTries counts its authorizations; authCancel withdraws the one
	// running (its question at the host) when the call ends.
	authTries  int
	authCancel context.CancelFunc

	waitingConnect bool // handed in while the connection was connecting
	checked        bool // passed the tool check
	relisted       bool // the tool list was asked afresh for it
	settling       bool // its result waits for a trailing progress update
	result         json.RawMessage
	// answer is the message that answered the call when the channel
	// decoded its result as a tool result already (wire.Message.Tool).
	answer *wire.Message
	done   bool
}

// arm starts the clock of a call just handed in, and its timer.
func (c *Conn) arm(call *callState) {
	call.running = call.started
	c.setTimer(call)
}

// setTimer fires when what is left of the budget is spent, if the clock
// keeps running. The timer only posts: the actor checks the clock again.
func (c *Conn) setTimer(call *callState) {
	left := call.budget - call.used
	call.timer = time.AfterFunc(max(left, 0), func() { c.post(callTimer{call: call}) })
}

// callTimer is the message of a call's timer.
type callTimer struct{ call *callState }

func (m callTimer) apply(c *Conn, st *connState) {
	call := m.call
	if call.done || call.running.IsZero() {
		return
	}
	if call.used+time.Since(call.running) < call.budget {
		c.setTimer(call)
		return
	}
	err := c.timedOut(st, call)
	c.stopCall(st, call, err, firstLine(err.Error()))
}

// timedOut is the error of a call whose budget is spent, with the server's
// stderr since the call began.
func (c *Conn) timedOut(st *connState, call *callState) error {
	if call.waitingConnect {
		return &CallError{Reason: "The call timed out after " + fmtDur(call.budget) + " waiting for connection \"" + c.name + "\" to finish connecting; it was never sent. " +
			"mcp_server_status shows how the connect is going; raise timeout_ms (--timeout from a shell) if the server is slow to start"}
	}
	t := &TimeoutError{Method: call.method, Budget: call.budget, InputWait: call.wait, words: c.env.words, process: call.sess != nil && call.sess.proc != nil}
	ce := &CallError{Reason: t.Error(), Err: t}
	if s := call.sess; s != nil && s.proc != nil {
		r := s.report(st.stderr, call.stderrMark)
		ce.Report = &r
	}
	return ce
}

// pause stops a call's clock for a round.
func (c *Conn) pause(call *callState, now time.Time) {
	call.holds++
	if call.running.IsZero() {
		return
	}
	call.used += now.Sub(call.running)
	call.running, call.paused = time.Time{}, now
	if call.timer != nil {
		call.timer.Stop()
	}
}

// resume restarts a call's clock once the last round pausing it closed.
func (c *Conn) resume(call *callState, now time.Time) {
	if call.holds > 0 {
		call.holds--
	}
	if call.holds > 0 || call.done || !call.running.IsZero() {
		return
	}
	if !call.paused.IsZero() {
		call.wait += now.Sub(call.paused)
	}
	call.running, call.paused = now, time.Time{}
	c.setTimer(call)
}

// stopClock stops a call's clock for good.
func (c *Conn) stopClock(call *callState, now time.Time) {
	if call.timer != nil {
		call.timer.Stop()
	}
	if !call.running.IsZero() {
		call.used += now.Sub(call.running)
	}
	if !call.paused.IsZero() {
		call.wait += now.Sub(call.paused)
	}
	call.running, call.paused = time.Time{}, time.Time{}
}
