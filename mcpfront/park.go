package mcpfront

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
)

// A target's question reaches the host in the host's era.
//
// A 2025-era host is sent the question as a request (elicitation/create,
// sampling/createMessage) and its answer goes back to the target.
//
// A 2026-07-28 host can be sent no request: the question goes back as the
// input_required result of the host's own call that carries it, with a
// requestState that names that one call. The target's call cannot be
// replayed (it is running, and waiting on its question), so it stays where
// it is, its clock paused; the host's retry, with the same arguments, the
// requestState and its inputResponses, hands the answers over and carries
// the call on: its next question, or its end, answers the retry. A call
// that ends meanwhile (its server died, a reconnect, the host's wait ran
// past hostRetryBound) leaves a note, so a retry that comes late is told why
// in words.

// hostRetryBound bounds how long a question may wait for a 2026-07-28 host's
// retry before the call it belongs to is given up on. It is input wait, not
// server time: no call timeout counts it.
const hostRetryBound = 30 * time.Minute

// park is one question waiting for a 2026-07-28 host's retry.
type park struct {
	token   string
	prim    *primitive
	items   []actors.Item
	keys    []string
	answers chan map[string]json.RawMessage
	ready   chan struct{} // closed once a request carries it to the host
}

// parks are the questions waiting for a retry, by requestState, and the
// notes left by those whose call ended.
type parks struct {
	mu    sync.Mutex
	open  map[string]*park
	ended map[string]string
	order []string
}

const maxEndedNotes = 1024

func (ps *parks) file(pk *park) {
	ps.mu.Lock()
	if ps.open == nil {
		ps.open, ps.ended = map[string]*park{}, map[string]string{}
	}
	ps.open[pk.token] = pk
	ps.mu.Unlock()
}

func (ps *parks) take(token string) (*park, string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pk := ps.open[token]
	delete(ps.open, token)
	return pk, ps.ended[token]
}

// end drops a question whose call ended, leaving why for a late retry.
func (ps *parks) end(token, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.open, token)
	if ps.ended == nil {
		ps.ended = map[string]string{}
	}
	ps.ended[token] = why
	ps.order = append(ps.order, token)
	if len(ps.order) > maxEndedNotes {
		delete(ps.ended, ps.order[0])
		ps.order = ps.order[1:]
	}
}

// Caps says what the host declared at initialize (a 2026-07-28 host
// declares on each request; a question uses its own call's).
func (f *front) Caps() actors.HostCaps { return capsOf(f.host.legacyCaps()) }

// Ask relays a target's question to the host.
func (f *front) Ask(ctx context.Context, q actors.Question) []actors.Answer {
	p, _ := q.Carrier.(*primitive)
	if p != nil && p.modern {
		return f.askModern(ctx, p, q)
	}
	answers := make([]actors.Answer, len(q.Items))
	if f.host.isModern() {
		// A 2026-07-28 host with no call of its waiting to carry it.
		for i, it := range q.Items {
			answers[i] = actors.Decline(it)
		}
		return answers
	}
	caps := capsOf(f.host.legacyCaps())
	for i, it := range q.Items {
		if !declared(caps, it) {
			answers[i] = actors.Decline(it)
			continue
		}
		raw, err := f.host.request(ctx, it.Method, it.Params)
		answers[i] = actors.Answer{Result: raw, Err: err}
	}
	return answers
}

// declared says the host declared what it would take to answer it.
func declared(c actors.HostCaps, it actors.Item) bool {
	switch it.Method {
	case string(mcp.MethodElicitationCreate):
		if it.IsURL() {
			return c.ElicitURL
		}
		return c.ElicitForm
	case string(mcp.MethodSamplingCreateMessage):
		return c.Sampling
	}
	return false
}

// askModern puts the questions a 2026-07-28 host can answer (those it
// declared on the call) to it as the input_required of the call, and waits
// for its retry.
func (f *front) askModern(ctx context.Context, p *primitive, q actors.Question) []actors.Answer {
	answers := make([]actors.Answer, len(q.Items))
	caps := capsOf(p.caps)
	pk := &park{token: newToken(), prim: p, answers: make(chan map[string]json.RawMessage, 1), ready: make(chan struct{})}
	var asked []int
	for i, it := range q.Items {
		if !declared(caps, it) {
			answers[i] = actors.Decline(it)
			continue
		}
		asked = append(asked, i)
		pk.items = append(pk.items, it)
		pk.keys = append(pk.keys, "run-mcp-input-"+strconv.Itoa(i+1))
	}
	if len(asked) == 0 {
		return answers
	}
	f.parks.file(pk)
	f.carry(p, pk)
	bound := time.NewTimer(hostRetryBound)
	defer bound.Stop()
	select {
	case got := <-pk.answers:
		for j, i := range asked {
			raw, ok := got[pk.keys[j]]
			if !ok {
				answers[i] = actors.Answer{Err: fmt.Errorf("the host retried without answering %s (no inputResponses entry %q)", q.Items[i].Method, pk.keys[j])}
				continue
			}
			answers[i] = actors.Answer{Result: raw}
		}
	case <-ctx.Done():
		f.parks.end(pk.token, "the call ended before the host answered (its server went away, it was reconnected, or it was cancelled)")
		for _, i := range asked {
			answers[i] = actors.Answer{Err: errors.New("the question was withdrawn: its call ended")}
		}
	case <-bound.C:
		why := fmt.Sprintf("the host did not answer the server's question (input_required) within %s; run-mcp cancelled the call", hostRetryBound)
		f.parks.end(pk.token, why)
		if c := p.conn; c != nil {
			c.Cancel(p.id, &actors.CallError{Code: actors.CodeCancelled, Reason: why})
		}
		for _, i := range asked {
			answers[i] = actors.Answer{Err: errors.New(why)}
		}
	}
	return answers
}

// carry answers the request that carries p with pk's questions, or queues
// pk until the host's next retry brings one.
func (f *front) carry(p *primitive, pk *park) {
	p.mu.Lock()
	r := p.req
	if r == nil {
		p.queue = append(p.queue, pk)
		p.mu.Unlock()
		return
	}
	p.req = nil
	p.mu.Unlock()
	f.emit(r, pk)
}

// emit ends r with pk's questions as input_required.
func (f *front) emit(r *request, pk *park) {
	requests := map[string]any{}
	for i, it := range pk.items {
		requests[pk.keys[i]] = map[string]any{"method": it.Method, "params": it.Params}
	}
	close(pk.ready)
	f.replyJSON(r, map[string]any{"resultType": mcp.ResultTypeInputRequired, "inputRequests": requests, "requestState": pk.token})
}

// resume serves a 2026-07-28 host's retry: its answers go to the question
// its requestState names, and the call it carries goes on with it.
func (f *front) resume(r *request, tool string, args map[string]any, token string, responses map[string]json.RawMessage) {
	pk, why := f.parks.take(token)
	if pk == nil {
		if why != "" {
			f.replyTool(r, errResult(fmt.Errorf("the call this requestState belonged to has ended: %s. Call the tool again without requestState", why)))
			return
		}
		f.replyTool(r, errResult(&actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "requestState names no call waiting for input: it was answered already, " +
			"or run-mcp never gave it. Call the tool again without requestState"}))
		return
	}
	p := pk.prim
	if tool != "call_mcp_primitive" || (p.conn != nil && getStr(args, "connection") != "" && getStr(args, "connection") != p.conn.Name()) {
		f.parks.file(pk) // still waiting for the right retry
		f.replyTool(r, errResult(&actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "requestState belongs to another call: " +
			"retry with the same tool and arguments as the call that returned it"}))
		return
	}
	r.mu.Lock()
	r.prim = p
	r.mu.Unlock()
	p.mu.Lock()
	p.req = r
	ended := p.ended
	p.ended = nil
	var next *park
	if len(p.queue) > 0 && ended == nil {
		next, p.queue = p.queue[0], p.queue[1:]
		p.req = nil
	}
	p.mu.Unlock()
	pk.answers <- responses
	switch {
	case ended != nil:
		f.finish(p, *ended)
	case next != nil:
		f.emit(r, next)
	}
}

// newToken is an unguessable requestState.
func newToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "run-mcp-" + base64.RawURLEncoding.EncodeToString(b)
}

// Notify forwards a target's notification to the host as a log message,
// when the host's era and level allow it and the connection's budget has
// room. It never blocks the actor that calls it for long: it writes one
// frame.
func (f *front) Notify(conn, method string, params json.RawMessage) {
	level := mcp.LoggingLevelInfo
	var p struct {
		Level  mcp.LoggingLevel `json:"level"`
		Logger string           `json:"logger"`
		Data   json.RawMessage  `json:"data"`
	}
	isLog := method == string(mcp.MethodNotificationMessage)
	if isLog && json.Unmarshal(params, &p) == nil && p.Level != "" {
		level = p.Level
	}
	if method == string(mcp.MethodNotificationProgress) || !f.host.allows(level) || !f.host.budget(conn) {
		return
	}
	out := map[string]any{"level": level, "logger": "run-mcp/" + conn, "_meta": map[string]any{"run-mcp/connection": conn}}
	if isLog {
		if p.Logger != "" {
			out["logger"] = "run-mcp/" + conn + "/" + p.Logger
		}
		out["data"] = p.Data
	} else {
		out["data"] = map[string]any{"method": method, "params": params}
	}
	_ = f.out.notify(string(mcp.MethodNotificationMessage), out)
}
