package mcpfront

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/run-mcp/run-mcp/actors"
)

// A host that speaks 2026-07-28 cannot be sent requests: when a target asks
// for input during a call, the host's tools/call must end with
// input_required, and the host answers by calling again with
// inputResponses. The target's call cannot be replayed (it is running, and
// waiting on its question), so it is parked: it keeps running on a
// goroutine of its own, its question goes back to the host with a
// requestState naming the round, and the host's retry hands the answer to
// the waiting question and waits for what the call does next.

// parks holds the calls of a 2026-07-28 host.
type parks struct {
	mu     sync.Mutex
	calls  map[*parkedCall]struct{}
	states map[string]*parkState
	seq    int
	closed bool
	wg     sync.WaitGroup
}

// parkedCall is one call of a 2026-07-28 host, running apart from the host
// request that started it.
type parkedCall struct {
	conn    string
	caps    actors.HostCaps
	seq     int
	bound   time.Duration // how long a question may wait for the host's retry
	cancel  context.CancelCauseFunc
	done    chan struct{}
	out     *actors.Outcome
	err     error
	wake    chan struct{} // signalled when a question is queued
	stopped <-chan struct{}

	mu      sync.Mutex
	queue   []*parkRound
	relay   func(actors.ProgressEvent) // progress of the host request waiting, if any
	abandon *time.Timer
	rounds  int
}

// parkRound is one question of the target waiting for the host's answer.
type parkRound struct {
	key    string
	method mcp.MCPMethod
	params any
	answer chan json.RawMessage // nil when the retry did not answer it
}

// parkState is what one input_required asked, under its requestState.
type parkState struct {
	call   *parkedCall
	rounds []*parkRound
}

type parkKey struct{}

// start runs req on c apart from ctx, which is the host's first request.
func (p *parks) start(ctx context.Context, c *actors.Conn, req actors.CallRequest, caps actors.HostCaps) (*parkedCall, error) {
	cctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	pc := &parkedCall{conn: c.Name(), caps: caps, bound: req.Timeout, cancel: cancel,
		done: make(chan struct{}), wake: make(chan struct{}, 1), stopped: cctx.Done()}
	if pc.bound <= 0 {
		pc.bound = DefaultTimeout
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		cancel(nil)
		return nil, &actors.CodedError{Code: actors.CodeCancelled, Msg: "run-mcp is shutting down; the call was not made"}
	}
	if p.calls == nil {
		p.calls, p.states = map[*parkedCall]struct{}{}, map[string]*parkState{}
	}
	p.seq++
	pc.seq = p.seq
	p.calls[pc] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	req.OnProgress = pc.progress
	cctx = context.WithValue(cctx, parkKey{}, pc)
	go func() {
		defer p.wg.Done()
		out, err := c.Call(cctx, req)
		pc.out, pc.err = out, err
		close(pc.done)
		cancel(nil)
		pc.stopAbandon()
		p.forget(pc)
	}()
	return pc, nil
}

// forget drops a call that ended, and the states that name it.
func (p *parks) forget(pc *parkedCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.calls, pc)
	for k, st := range p.states {
		if st.call == pc {
			delete(p.states, k)
		}
	}
}

// find returns the parked call a target's question belongs to: the call
// whose context it carries (a 2026-07-28 target's rounds), else the oldest
// parked call on the connection (a legacy target's requests name no call).
func (p *parks) find(ctx context.Context, conn string) *parkedCall {
	if pc, ok := ctx.Value(parkKey{}).(*parkedCall); ok && pc.conn == conn {
		return pc
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var oldest *parkedCall
	for pc := range p.calls {
		if pc.conn == conn && (oldest == nil || pc.seq < oldest.seq) {
			oldest = pc
		}
	}
	return oldest
}

// await waits for what the parked call does next, for the host request ctx:
// its outcome, or its questions as an input_required result.
func (p *parks) await(ctx context.Context, pc *parkedCall, relay func(actors.ProgressEvent)) (*actors.Outcome, *mcp.CallToolResult, error) {
	pc.attach(relay)
	defer pc.attach(nil)
	for {
		select {
		case <-pc.done:
			return pc.out, nil, pc.err
		default:
		}
		select {
		case <-pc.done:
			return pc.out, nil, pc.err
		case <-pc.wake:
			if rounds := pc.take(); len(rounds) > 0 {
				return nil, p.park(pc, rounds), nil
			}
		case <-ctx.Done():
			// The host gave up on the call: so does run-mcp.
			pc.cancel(context.Canceled)
			<-pc.done
			return pc.out, nil, pc.err
		}
	}
}

// park files the questions under a fresh requestState and renders them.
// The state is unguessable and good for one retry; if none comes within
// the call's timeout the call is cancelled, so an abandoned one never lingers.
func (p *parks) park(pc *parkedCall, rounds []*parkRound) *mcp.CallToolResult {
	token := newToken()
	p.mu.Lock()
	p.states[token] = &parkState{call: pc, rounds: rounds}
	p.mu.Unlock()
	pc.mu.Lock()
	pc.abandon = time.AfterFunc(pc.bound, func() {
		pc.cancel(&actors.CallError{Reason: fmt.Sprintf("the host did not answer the server's question (input_required) within %s, "+
			"the call's timeout (timeout_ms); run-mcp cancelled the call", pc.bound)})
	})
	pc.mu.Unlock()
	b := server.NewInputRequestBuilder(token)
	for _, r := range rounds {
		switch params := r.params.(type) {
		case mcp.ElicitationParams:
			b.Elicit(r.key, params)
		case mcp.CreateMessageParams:
			b.Sample(r.key, params)
		}
	}
	return b.ToolResult()
}

// resume answers the questions a requestState names with the retry's
// inputResponses and waits for what the call does next.
func (p *parks) resume(ctx context.Context, conn string, hc hostCall, relay func(actors.ProgressEvent)) (*actors.Outcome, *mcp.CallToolResult, error) {
	p.mu.Lock()
	st := p.states[hc.state]
	if st != nil && st.call.conn == conn {
		delete(p.states, hc.state)
	}
	p.mu.Unlock()
	if st == nil {
		return nil, nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "requestState names no call waiting for input: it was answered already, " +
			"or the call ended (cancelled, or abandoned after its timeout without an answer). Call the tool again without requestState"}
	}
	if st.call.conn != conn {
		return nil, nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf("requestState belongs to a call on connection %q, not %q; "+
			"retry with the same arguments as the call that returned it", st.call.conn, conn)}
	}
	st.call.stopAbandon()
	for _, r := range st.rounds {
		r.answer <- hc.answers[r.key]
	}
	return p.await(ctx, st.call, relay)
}

// closeAll cancels every parked call (the host went away).
func (p *parks) closeAll(cause error) {
	p.mu.Lock()
	p.closed = true
	for pc := range p.calls {
		pc.cancel(cause)
	}
	p.mu.Unlock()
}

// wait returns once every parked call has ended.
func (p *parks) wait() { p.wg.Wait() }

func (pc *parkedCall) attach(relay func(actors.ProgressEvent)) {
	pc.mu.Lock()
	pc.relay = relay
	pc.mu.Unlock()
}

func (pc *parkedCall) progress(ev actors.ProgressEvent) {
	pc.mu.Lock()
	relay := pc.relay
	pc.mu.Unlock()
	if relay != nil {
		relay(ev)
	}
}

func (pc *parkedCall) stopAbandon() {
	pc.mu.Lock()
	if pc.abandon != nil {
		pc.abandon.Stop()
		pc.abandon = nil
	}
	pc.mu.Unlock()
}

func (pc *parkedCall) take() []*parkRound {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	rounds := pc.queue
	pc.queue = nil
	sort.Slice(rounds, func(i, j int) bool { return rounds[i].key < rounds[j].key })
	return rounds
}

// ask queues one question for the host and waits for its answer (nil when
// the host's retry left it unanswered).
func (pc *parkedCall) ask(ctx context.Context, method mcp.MCPMethod, params any) (json.RawMessage, error) {
	pc.mu.Lock()
	pc.rounds++
	r := &parkRound{key: fmt.Sprintf("run-mcp-input-%d", pc.rounds), method: method, params: params, answer: make(chan json.RawMessage, 1)}
	pc.queue = append(pc.queue, r)
	pc.mu.Unlock()
	select {
	case pc.wake <- struct{}{}:
	default:
	}
	select {
	case raw := <-r.answer:
		return raw, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-pc.stopped:
		return nil, fmt.Errorf("the call ended before the host answered")
	}
}

// elicit asks the host's person through input_required, when the host
// declared that mode on the call, and declines deterministically when not.
func (pc *parkedCall) elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	wantURL := req.Params.Mode == mcp.ElicitationModeURL
	if (wantURL && !pc.caps.ElicitURL) || (!wantURL && !pc.caps.ElicitForm) {
		return actors.Headless{}.Elicit(ctx, "", req)
	}
	raw, err := pc.ask(ctx, mcp.MethodElicitationCreate, req.Params)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("the host retried without answering the elicitation (no inputResponses entry for it)")
	}
	var res mcp.ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the host's answer to the elicitation does not fit: %w", err)
	}
	return &res, nil
}

// sample asks the host's model through input_required.
func (pc *parkedCall) sample(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if !pc.caps.Sampling {
		return nil, fmt.Errorf("the host run-mcp runs under did not declare sampling on this call, so there is no model to ask")
	}
	raw, err := pc.ask(ctx, mcp.MethodSamplingCreateMessage, req.CreateMessageParams)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, fmt.Errorf("the host retried without answering the sampling request (no inputResponses entry for it)")
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("the host's answer to the sampling request does not fit: %w", err)
	}
	return &res, nil
}

// newToken is an unguessable requestState.
func newToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "run-mcp-" + base64.RawURLEncoding.EncodeToString(b)
}

// callFor runs a call of the host: directly for a legacy host, parked for a
// 2026-07-28 one. A non-nil pending result is the input_required to return.
func (f *front) callFor(ctx context.Context, c *actors.Conn, req actors.CallRequest) (*actors.Outcome, *mcp.CallToolResult, error) {
	hc, _ := hostCallFrom(ctx)
	if hc.state != "" {
		return f.host.parks.resume(ctx, c.Name(), hc, f.progressRelay(ctx))
	}
	info := server.RequestProtocolInfoFromContext(ctx)
	if info == nil || !info.Modern {
		out, err := c.Call(ctx, req)
		return out, nil, err
	}
	var caps actors.HostCaps
	if info.ClientCapabilities != nil {
		caps = capsOf(*info.ClientCapabilities)
	}
	pc, err := f.host.parks.start(ctx, c, req, caps)
	if err != nil {
		return nil, nil, err
	}
	return f.host.parks.await(ctx, pc, f.progressRelay(ctx))
}
