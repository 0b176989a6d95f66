package actors

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/run-mcp/run-mcp/wire"
)

// exchange sends one housekeeping request on s for an operation (a listing,
// subscribe, ping, validate's raw requests) and waits for its answer within
// budget. The request goes through the actor, which files it and is handed
// its answer by the channel like every other; the operation only waits. A
// request the server leaves unanswered fails with a RequestTimeoutError
// naming it; a cancelled one is followed by notifications/cancelled.
func (c *Conn) exchange(ctx context.Context, s *session, method string, params map[string]any, budget time.Duration, name string) (json.RawMessage, error) {
	for tries := 0; ; tries++ {
		res, err := c.exchangeOnce(ctx, s, method, params, budget, name)
		if _, ok := challengeOf(err); !ok || s.auth == nil || ctx.Err() != nil {
			return res, err
		}
		// Authorized between two attempts, each with its whole budget.
		if err := c.authorize(ctx, s, err, tries, &hostPerson{}); err != nil {
			return nil, err
		}
		s.relisten()
	}
}

func (c *Conn) exchangeOnce(ctx context.Context, s *session, method string, params map[string]any, budget time.Duration, name string) (json.RawMessage, error) {
	tctx, cancel := context.WithTimeoutCause(ctx, budget, errBudgetSpent)
	defer cancel()
	res, err := c.roundTrip(tctx, s, method, params, name, "")
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), errBudgetSpent) {
		return nil, c.requestTimedOut(ctx, s, method, budget, err)
	}
	return res, err
}

// exchangeAt is a request of the handshake, bounded by ctx (the connect
// budget); protocol, when set, is the revision it is sent at (the probe's,
// before the session has one).
func (c *Conn) exchangeAt(ctx context.Context, s *session, method string, params map[string]any, protocol string) (json.RawMessage, error) {
	return c.roundTrip(ctx, s, method, params, "", protocol)
}

// errNotAnswered is the cause of a request run-mcp stopped waiting for.
var errNotAnswered = errors.New("run-mcp stopped waiting for the answer")

func (c *Conn) roundTrip(ctx context.Context, s *session, method string, params map[string]any, name, protocol string) (json.RawMessage, error) {
	reply := make(chan answer, 1)
	var key string
	var sendErr error
	err := c.do(ctx, func(st *connState) {
		if s.retired || s.channelEnded {
			sendErr = &wire.ClosedError{Reason: s.chanErr}
			return
		}
		p := &pending{method: method, reply: reply}
		if protocol != "" && s.protocol == "" {
			// The probe is sent at the revision it asks about.
			saved := s.protocol
			s.protocol = protocol
			defer func() { s.protocol = saved }()
		}
		if s.modern {
			params = s.withMeta(c.env.clientInfo, params)
		}
		key, sendErr = c.send(st, s, p, params, name)
	})
	if err != nil {
		return nil, err
	}
	if sendErr != nil {
		return nil, sendErr
	}
	select {
	case a := <-reply:
		return a.result, a.err
	case <-ctx.Done():
		reason := "cancelled by the client"
		if errors.Is(context.Cause(ctx), errBudgetSpent) {
			reason = "run-mcp's budget for it ran out"
		}
		c.post(giveUp{key: key, reason: reason})
		return nil, context.Cause(ctx)
	}
}

// giveUp is the message of an operation that stopped waiting for request
// key: the target is told (notifications/cancelled) and a late answer is
// dropped quietly.
type giveUp struct{ key, reason string }

func (m giveUp) apply(c *Conn, st *connState) {
	if _, ok := st.pending[m.key]; ok {
		c.cancelRequest(st, m.key, m.reason)
	}
}

// failPending ends a request whose answer will not come.
func (c *Conn) failPending(st *connState, p *pending, err error) {
	switch {
	case p.reply != nil:
		p.reply <- answer{err: err}
	case p.stream != nil:
		p.stream.end(err)
	case p.refresh != nil:
		c.refreshFailed(st, p.refresh, err)
	case p.call != nil:
		c.callRequestFailed(st, p.call, err)
	}
}
