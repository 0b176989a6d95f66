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

// park is one question for a 2026-07-28 host.
type park struct {
	token   string
	cands   []*primitive // the calls it may ride on, oldest first
	items   []actors.Item
	keys    []string
	answers chan map[string]json.RawMessage // the host's answers, or nil: nobody can carry it
	on      *primitive                      // the call it was put to the host on
}

// parks are the questions put to the host, by requestState; the questions
// waiting for one of their calls to be free to carry them; and the notes
// left by those whose call ended.
type parks struct {
	mu      sync.Mutex
	open    map[string]*park
	waiting []*park
	ended   map[string]string
	order   []string
}

const maxEndedNotes = 1024

func (ps *parks) take(token string) (*park, string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pk := ps.open[token]
	delete(ps.open, token)
	return pk, ps.ended[token]
}

// end drops a question whose call ended, leaving why for a late retry.
func (ps *parks) end(pk *park, why string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.open, pk.token)
	for i, w := range ps.waiting {
		if w == pk {
			ps.waiting = append(ps.waiting[:i], ps.waiting[i+1:]...)
			break
		}
	}
	if ps.ended == nil {
		ps.ended = map[string]string{}
	}
	ps.ended[pk.token] = why
	ps.order = append(ps.order, pk.token)
	if len(ps.order) > maxEndedNotes {
		delete(ps.ended, ps.order[0])
		ps.order = ps.order[1:]
	}
}

// place puts pk to the host on the first of its calls whose request is free
// to carry it, or has it wait for one.
func (f *front) place(pk *park) {
	f.parks.mu.Lock()
	defer f.parks.mu.Unlock()
	for _, p := range pk.cands {
		if r := p.claim(); r != nil {
			f.put(r, p, pk)
			return
		}
	}
	f.parks.waiting = append(f.parks.waiting, pk)
}

// freed gives p's request, free again, to the first question waiting that
// may ride on p; it reports whether it did. parks.mu is held.
func (f *front) freed(p *primitive) bool {
	for i, pk := range f.parks.waiting {
		for _, c := range pk.cands {
			if c != p {
				continue
			}
			r := p.claim()
			if r == nil {
				return false
			}
			f.parks.waiting = append(f.parks.waiting[:i], f.parks.waiting[i+1:]...)
			f.put(r, p, pk)
			return true
		}
	}
	return false
}

// gone is p's end: questions that could ride on no other call get no
// answer from the host (the engine then declines them). parks.mu is held.
func (f *front) gone(p *primitive) {
	keep := f.parks.waiting[:0]
	for _, pk := range f.parks.waiting {
		alive := false
		for _, c := range pk.cands {
			if c != p && !c.isDone() {
				alive = true
			}
		}
		if alive {
			keep = append(keep, pk)
			continue
		}
		pk.answers <- nil
	}
	f.parks.waiting = keep
}

// put ends r, the request that carries p, with pk's questions as
// input_required. parks.mu is held.
func (f *front) put(r *request, p *primitive, pk *park) {
	pk.on = p
	if f.parks.open == nil {
		f.parks.open = map[string]*park{}
	}
	f.parks.open[pk.token] = pk
	requests := map[string]any{}
	for i, it := range pk.items {
		requests[pk.keys[i]] = map[string]any{"method": it.Method, "params": it.Params}
	}
	f.replyJSON(r, map[string]any{"resultType": mcp.ResultTypeInputRequired, "inputRequests": requests, "requestState": pk.token})
}

// Caps says what the host declared at initialize (a 2026-07-28 host
// declares on each request; a question uses its own call's).
func (f *front) Caps() actors.HostCaps { return capsOf(f.host.legacyCaps()) }

// Ask relays a target's question to the host.
func (f *front) Ask(ctx context.Context, q actors.Question) []actors.Answer {
	var cands []*primitive
	for _, tag := range q.Carriers {
		if p, ok := tag.(*primitive); ok && p.modern {
			cands = append(cands, p)
		}
	}
	if len(cands) > 0 {
		return f.askModern(ctx, cands, q)
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
// declared on the call) to it as the input_required of one of the calls it
// may ride on, and waits for the host's retry.
func (f *front) askModern(ctx context.Context, cands []*primitive, q actors.Question) []actors.Answer {
	answers := make([]actors.Answer, len(q.Items))
	caps := capsOf(cands[0].caps)
	pk := &park{token: newToken(), cands: cands, answers: make(chan map[string]json.RawMessage, 1)}
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
	f.place(pk)
	bound := time.NewTimer(hostRetryBound)
	defer bound.Stop()
	select {
	case got := <-pk.answers:
		for j, i := range asked {
			if got == nil {
				answers[i] = actors.Decline(q.Items[i])
				continue
			}
			raw, ok := got[pk.keys[j]]
			if !ok {
				answers[i] = actors.Answer{Err: fmt.Errorf("the host retried without answering %s (no inputResponses entry %q)", q.Items[i].Method, pk.keys[j])}
				continue
			}
			answers[i] = actors.Answer{Result: raw}
		}
	case <-ctx.Done():
		f.parks.end(pk, "the call ended before the host answered (its server went away, it was reconnected, or it was cancelled)")
		for _, i := range asked {
			answers[i] = actors.Answer{Err: errors.New("the question was withdrawn: its call ended")}
		}
	case <-bound.C:
		why := fmt.Sprintf("the host did not answer the server's question (input_required) within %s; run-mcp cancelled the call", hostRetryBound)
		f.parks.end(pk, why)
		if p := pk.on; p != nil && p.conn != nil {
			p.conn.Cancel(p.id, &actors.CallError{Code: actors.CodeCancelled, Reason: why})
		}
		for _, i := range asked {
			answers[i] = actors.Answer{Err: errors.New(why)}
		}
	}
	return answers
}

// resume serves a 2026-07-28 host's retry: its answers go to the question
// its requestState names, and the call it was put on goes on with this
// request: its next question, or its end, answers it.
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
	p := pk.on
	if tool != "call_mcp_primitive" || (p.conn != nil && getStr(args, "connection") != "" && getStr(args, "connection") != p.conn.Name()) {
		f.parks.mu.Lock()
		f.parks.open[token] = pk // still waiting for the right retry
		f.parks.mu.Unlock()
		f.replyTool(r, errResult(&actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "requestState belongs to another call: " +
			"retry with the same tool and arguments as the call that returned it"}))
		return
	}
	r.mu.Lock()
	r.prim = p
	r.mu.Unlock()
	pk.answers <- responses
	f.parks.mu.Lock()
	p.mu.Lock()
	p.req = r
	ended := p.ended
	p.ended = nil
	p.mu.Unlock()
	if ended == nil {
		f.freed(p)
	}
	f.parks.mu.Unlock()
	if ended != nil {
		f.finish(p, *ended)
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
