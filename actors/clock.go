package actors

import (
	"context"
	"time"
)

// callState is one call in flight, owned by the Conn actor. Its clock counts
// server time only: it is paused while any client-input round is open, so a
// form a person takes a minute to answer cannot trip a 30-second timeout.
type callState struct {
	id       int
	method   string // tools/call, resources/read or prompts/get
	process  bool   // the server is a process run-mcp started (it has stderr)
	started  time.Time
	budget   time.Duration // callBudget: never 0 for a call Conn.Call made
	used     time.Duration // server time before runningSince
	running  time.Time     // zero while paused
	paused   time.Time     // when the current pause began
	wait     time.Duration // client-input wait so far
	timer    *time.Timer
	cancel   context.CancelCauseFunc
	rounds   []Round
	token    string
	finished bool
}

// openRound pauses every clock; it returns when the round opened.
//
// The express calls' clocks are paused here, on the caller's goroutine, not
// through the mailbox: an express call's answer does not pass the actor, so
// a round posted there could be recorded after the call it belongs to ended.
func (c *Conn) openRound() time.Time {
	c.expressRoundOpened(time.Now())
	c.post(func(st *connState) {
		st.roundSeq++
		st.openRounds++
		now := time.Now()
		if st.openRounds == 1 {
			for _, call := range st.calls {
				c.pause(call, now)
			}
		}
	})
	return time.Now()
}

// closeRound records r on every call in flight and resumes the clocks when
// no round is open any more.
func (c *Conn) closeRound(opened time.Time, r Round) {
	if r.Duration == 0 {
		r.Duration = time.Since(opened)
	}
	rr := r
	rr.MS = rr.Duration.Milliseconds()
	c.expressRoundClosed(time.Now(), rr) // before the server can answer the call: see openRound
	c.post(func(st *connState) {
		now := time.Now()
		if st.openRounds > 0 {
			st.openRounds--
		}
		for _, call := range st.calls {
			call.rounds = append(call.rounds, rr)
			if st.openRounds == 0 {
				c.resume(call, now)
			}
		}
	})
}

func (c *Conn) pause(call *callState, now time.Time) {
	if call.running.IsZero() {
		return
	}
	call.used += now.Sub(call.running)
	call.running, call.paused = time.Time{}, now
	if call.timer != nil {
		call.timer.Stop()
	}
}

func (c *Conn) resume(call *callState, now time.Time) {
	if !call.running.IsZero() {
		return
	}
	if !call.paused.IsZero() {
		call.wait += now.Sub(call.paused)
	}
	call.running, call.paused = now, time.Time{}
	c.arm(call)
}

// arm sets the timer for what is left of the budget. The timer only posts to
// the actor, which checks the clock again: a pause may have raced it.
func (c *Conn) arm(call *callState) {
	if call.budget <= 0 {
		return
	}
	left := call.budget - call.used
	call.timer = time.AfterFunc(max(left, 0), func() {
		c.post(func(st *connState) {
			if st.calls[call.id] != call || call.running.IsZero() {
				return
			}
			if call.used+time.Since(call.running) >= call.budget {
				call.cancel(&TimeoutError{Method: call.method, Budget: call.budget, InputWait: call.wait, words: c.env.words, process: call.process})
				return
			}
			c.arm(call)
		})
	})
}

// serverTime is the call's server time so far.
func (call *callState) serverTime(now time.Time) time.Duration {
	if call.running.IsZero() {
		return call.used
	}
	return call.used + now.Sub(call.running)
}
