package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Client input, per call. A target asks its client for input in one of three
// ways, and each names the call it belongs to as exactly as the wire allows:
//
//   - a 2026-07-28 call answers input_required: the round is that call's;
//   - over Streamable HTTP, a request that arrives on a call's own response
//     stream is that call's;
//   - a 2025-era request on stdio names no call. With one call in flight it
//     is that call's. With several, run-mcp cannot know which one waits, so
//     the round pauses every call in flight and is recorded on each as
//     shared (Round.Shared, Outcome.Shared): their time is then reported
//     whole, never split into server time and input wait that run-mcp
//     could not observe. With none, it pauses nothing.
//
// While a round is open the clocks of the calls it pauses stand still, so a
// timeout counts server time only. Its question goes to the Host on a
// goroutine of its own (a person may take minutes); the answer comes back
// to the actor as a roundAnswered message.

// Round is one client-input round as a call reports it.
type Round struct {
	Kind     string   `json:"kind"`           // elicitation, sampling, roots
	Mode     string   `json:"mode,omitempty"` // "url" for a URL-mode elicitation
	Question string   `json:"question,omitempty"`
	Outcome  string   `json:"outcome"` // accepted, declined, cancelled, answered, refused, withdrawn
	Changed  []string `json:"changed_fields,omitempty"`
	// Shared is how many calls in flight the question paused when it named
	// none of them (0: it was this call's own).
	Shared   int           `json:"shared_with,omitempty"`
	Duration time.Duration `json:"-"`
	MS       int64         `json:"duration_ms"`
}

// Line is the round as one line of a reply.
func (r Round) Line() string {
	var b strings.Builder
	b.WriteString(r.Kind)
	if r.Mode == "url" {
		b.WriteString(" (URL)")
	}
	if r.Question != "" {
		fmt.Fprintf(&b, " %q", r.Question)
	}
	fmt.Fprintf(&b, ": %s", r.Outcome)
	switch {
	case len(r.Changed) > 0:
		fmt.Fprintf(&b, " (changed from the defaults: %s)", strings.Join(r.Changed, ", "))
	case r.Outcome == "accepted" && r.Kind == "elicitation" && r.Mode == "url":
		b.WriteString(" (the person agreed to open the URL)")
	case r.Outcome == "accepted" && r.Kind == "elicitation":
		b.WriteString(" (defaults kept)")
	}
	fmt.Fprintf(&b, " in %s", fmtDur(r.Duration))
	if r.Shared > 1 {
		fmt.Fprintf(&b, "; shared with %d calls in flight (the request named no call)", r.Shared)
	}
	return b.String()
}

// round is an open round, owned by the actor.
type round struct {
	id     int
	sess   *session
	calls  []*callState // the calls it pauses
	shared bool
	opened time.Time
	items  []roundItem
	cancel context.CancelCauseFunc
	why    error // why it was withdrawn, for the host (nil: its call ended)
	// reqID is the target's request a 2025-era round answers.
	reqID json.RawMessage
	// call and state are the 2026-07-28 call whose input_required it
	// answers, and the requestState to echo.
	call  *callState
	state json.RawMessage
}

type roundItem struct {
	key      string // the inputRequests key (2026-07-28)
	kind     string // elicitation, sampling, roots
	method   string
	params   json.RawMessage
	question string
	mode     string
}

// roundAnswered is the message that brings the host's answers to a round.
type roundAnswered struct {
	r       *round
	answers []Answer
}

// attribute names the calls a 2025-era request of the target belongs to.
func (c *Conn) attribute(st *connState, s *session, m *wire.Message) (calls []*callState, shared bool) {
	if m.Stream != "" {
		if p := st.pending[m.Stream]; p != nil && p.call != nil {
			return []*callState{p.call}, false
		}
	}
	for _, call := range st.calls {
		if call.sess == s && !call.done && call.key != "" {
			calls = append(calls, call)
		}
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].id < calls[j].id })
	return calls, len(calls) > 1
}

// targetRequest answers a request the target sent its client (2025 era).
func (c *Conn) targetRequest(st *connState, s *session, m *wire.Message) {
	if m.Invalid != "" {
		c.respond(s, m.ID, nil, &wire.RPCError{Code: mcp.INVALID_REQUEST, Message: "run-mcp cannot answer " + m.Invalid})
		return
	}
	if s.modern && s.proc != nil {
		s.evidence.AddError(wire.TransportError{Time: m.Time, Line: m.Line, EraRule: true,
			Message: fmt.Sprintf("a server-to-client request (%s) on a 2026-07-28 connection: on stdio that era forbids server-to-client requests (ask with an input_required result instead); run-mcp answered it with an error", m.Method)})
		c.respond(s, m.ID, nil, &wire.RPCError{Code: mcp.METHOD_NOT_FOUND,
			Message: "run-mcp does not answer " + m.Method + " on a 2026-07-28 connection: return an input_required result instead"})
		return
	}
	switch m.Method {
	case string(mcp.MethodPing):
		c.respond(s, m.ID, struct{}{}, nil)
	case string(mcp.MethodListRoots):
		calls, shared := c.attribute(st, s, m)
		roots := c.rootsOf(st)
		c.respond(s, m.ID, map[string]any{"roots": roots}, nil)
		r := &round{sess: s, calls: calls, shared: shared, opened: m.Time}
		c.record(st, r, Round{Kind: "roots", Question: fmt.Sprintf("%d root(s)", len(roots)), Outcome: "answered"})
	case string(mcp.MethodElicitationCreate), string(mcp.MethodSamplingCreateMessage):
		calls, shared := c.attribute(st, s, m)
		r := &round{sess: s, calls: calls, shared: shared, opened: m.Time, reqID: m.ID,
			items: []roundItem{itemOf("", m.Method, m.Params)}}
		c.openRound(st, r)
	default:
		c.respond(s, m.ID, nil, &wire.RPCError{Code: mcp.METHOD_NOT_FOUND, Message: "run-mcp does not answer " + m.Method})
	}
}

func (c *Conn) rootsOf(st *connState) []mcp.Root {
	if st.cfg.Roots == nil {
		return []mcp.Root{}
	}
	return st.cfg.Roots
}

// itemOf reads one question.
func itemOf(key, method string, params json.RawMessage) roundItem {
	it := roundItem{key: key, method: method, params: params}
	switch method {
	case string(mcp.MethodElicitationCreate):
		var p struct {
			Message string `json:"message"`
			Mode    string `json:"mode"`
		}
		_ = json.Unmarshal(params, &p)
		it.kind, it.question, it.mode = "elicitation", firstSentence(p.Message), p.Mode
	case string(mcp.MethodSamplingCreateMessage):
		it.kind, it.question = "sampling", samplingQuestion(params)
	case string(mcp.MethodListRoots):
		it.kind = "roots"
	default:
		it.kind = method
	}
	return it
}

// openRound opens r: its calls' clocks stop and its question goes to the host.
func (c *Conn) openRound(st *connState, r *round) {
	st.roundSeq++
	r.id = st.roundSeq
	st.rounds[r.id] = r
	for _, call := range r.calls {
		c.pause(call, r.opened)
		if r.shared {
			call.shared = true
		}
	}
	q := Question{Conn: c.name, Paused: len(r.calls), Shared: r.shared}
	for _, call := range r.calls {
		if call.req.Tag != nil {
			q.Carriers = append(q.Carriers, call.req.Tag)
		}
	}
	for _, it := range r.items {
		q.Items = append(q.Items, Item{Method: it.method, Params: it.params})
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r.cancel = cancel
	host := c.env.host
	go func() {
		answers := host.Ask(ctx, q)
		c.post(roundAnswered{r: r, answers: answers})
	}()
}

func (m roundAnswered) apply(c *Conn, st *connState) {
	r := m.r
	if st.rounds[r.id] != r {
		return // withdrawn, or its call or session ended meanwhile
	}
	delete(st.rounds, r.id)
	r.cancel(nil)
	now := time.Now()
	answers := m.answers
	for len(answers) < len(r.items) {
		answers = append(answers, Answer{Err: fmt.Errorf("the host gave no answer")})
	}
	for i, it := range r.items {
		c.record(st, r, roundOf(it, answers[i], now.Sub(r.opened)))
	}
	for _, call := range r.calls {
		c.resume(call, now)
	}
	if r.call != nil {
		c.answerModern(st, r, answers)
		return
	}
	if r.sess.retired || r.sess.channelEnded {
		return
	}
	a := answers[0]
	if a.Err != nil {
		c.respond(r.sess, r.reqID, nil, &wire.RPCError{Code: mcp.INTERNAL_ERROR, Message: refusal(r.items[0], a.Err)})
		return
	}
	c.respond(r.sess, r.reqID, a.Result, nil)
}

// refusal is the error a target gets when its question found no answer.
func refusal(it roundItem, err error) string {
	if it.kind == "sampling" {
		return "sampling refused: " + err.Error()
	}
	return "the client could not ask: " + err.Error()
}

// roundOf is how one question went.
func roundOf(it roundItem, a Answer, d time.Duration) Round {
	r := Round{Kind: it.kind, Mode: it.mode, Question: it.question, Duration: d, MS: d.Milliseconds()}
	switch {
	case a.Err != nil:
		r.Outcome = "refused"
	case it.kind == "elicitation":
		var res struct {
			Action  string         `json:"action"`
			Content map[string]any `json:"content"`
		}
		_ = json.Unmarshal(a.Result, &res)
		r.Outcome = map[string]string{"accept": "accepted", "decline": "declined", "cancel": "cancelled"}[res.Action]
		if r.Outcome == "" {
			r.Outcome = "answered with action " + fmt.Sprintf("%q", res.Action)
		}
		if r.Outcome == "accepted" && it.mode != "url" {
			r.Changed = changedFields(it.params, res.Content)
		}
	default:
		r.Outcome = "answered"
	}
	return r
}

// record files a round on the calls it paused.
func (c *Conn) record(st *connState, r *round, rec Round) {
	if r.shared {
		rec.Shared = len(r.calls)
	}
	rec.MS = rec.Duration.Milliseconds()
	for _, call := range r.calls {
		if !call.done {
			call.rounds = append(call.rounds, rec)
		}
	}
}

// release tells an open round that one of the calls it pauses has ended. A
// round that was that call's alone is withdrawn: its question at the host is
// cancelled, and a 2025-era target is told the call ended (a form's cancel,
// or an error for sampling).
func (r *round) release(c *Conn, st *connState, call *callState) {
	for i, x := range r.calls {
		if x != call {
			continue
		}
		r.calls = append(r.calls[:i], r.calls[i+1:]...)
		if len(r.calls) == 0 && !r.shared {
			c.dropRound(st, r)
		}
		return
	}
}

// dropRound withdraws an open round nobody waits for any more.
func (c *Conn) dropRound(st *connState, r *round) {
	if st.rounds[r.id] != r {
		return
	}
	delete(st.rounds, r.id)
	why := r.why
	if why == nil {
		why = errors.New("the call that asked ended")
	}
	r.cancel(why)
	now := time.Now()
	for _, call := range r.calls {
		c.resume(call, now)
	}
	if r.reqID == nil || r.sess.retired || r.sess.channelEnded {
		return
	}
	if r.items[0].kind == "elicitation" {
		c.respond(r.sess, r.reqID, map[string]any{"action": "cancel"}, nil)
		return
	}
	c.respond(r.sess, r.reqID, nil, &wire.RPCError{Code: mcp.INTERNAL_ERROR, Message: "the call that asked ended before the host answered"})
}

// withdrawn handles the target's notifications/cancelled for one of its own
// requests: the round is closed without an answer, and its question at the
// host is cancelled.
func (c *Conn) withdrawn(st *connState, s *session, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	key := wire.IDKey(p.RequestID)
	why := "the server withdrew its question"
	if p.Reason != "" {
		why += ": " + p.Reason
	}
	for _, r := range st.rounds {
		if r.sess == s && r.reqID != nil && wire.IDKey(r.reqID) == key {
			now := time.Now()
			for _, it := range r.items {
				c.record(st, r, Round{Kind: it.kind, Mode: it.mode, Question: it.question, Outcome: "withdrawn by the server", Duration: now.Sub(r.opened)})
			}
			r.reqID = nil // it expects no answer
			r.why = errors.New(why)
			c.dropRound(st, r)
			return
		}
	}
}

// openModernRound answers a 2026-07-28 call's input_required: its roots are
// answered at once, its forms and sampling go to the host; then the call is
// sent again with the answers and the state echoed.
func (c *Conn) openModernRound(st *connState, call *callState, raw json.RawMessage) {
	var res struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		c.finish(st, call, nil, fmt.Errorf("the server's input_required result is not one the protocol defines: %s", wire.JSONWords(err)))
		return
	}
	call.lastRequired = raw
	if len(res.InputRequests) == 0 {
		// Load shedding: the server asks for nothing now. The call ends
		// with what it said.
		c.finish(st, call, raw, nil)
		return
	}
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	r := &round{sess: call.sess, calls: []*callState{call}, opened: time.Now(), call: call, state: res.RequestState}
	for _, k := range keys {
		ir := res.InputRequests[k]
		r.items = append(r.items, itemOf(k, ir.Method, ir.Params))
	}
	if call.declined {
		// Asked again after a decline nobody could change: a second
		// decline would not change the server's mind.
		call.unanswered = true
		c.finish(st, call, raw, nil)
		return
	}
	c.openRound(st, r)
}

// answerModern sends a 2026-07-28 call again with the host's answers, or
// ends it with the server's last input_required when an answer cannot be
// given (a refusal cannot be expressed as an input response).
func (c *Conn) answerModern(st *connState, r *round, answers []Answer) {
	call := r.call
	if call.done {
		return
	}
	responses := map[string]json.RawMessage{}
	for i, it := range r.items {
		a := answers[i]
		if it.kind == "roots" && a.Err == nil && a.Result == nil {
			a.Result = mustJSON(map[string]any{"roots": c.rootsOf(st)})
		}
		if a.Err != nil {
			call.unanswered = true
			c.finish(st, call, call.lastRequired, nil)
			return
		}
		if a.NoOneToAsk {
			call.declined = true
		}
		responses[it.key] = a.Result
	}
	c.sendCall(st, call, responses, r.state)
}

func samplingQuestion(params json.RawMessage) string {
	var p struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(params, &p)
	for _, m := range p.Messages {
		var one struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &one) == nil && one.Text != "" {
			return firstSentence(one.Text)
		}
		var many []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &many) == nil {
			for _, c := range many {
				if c.Text != "" {
					return firstSentence(c.Text)
				}
			}
		}
	}
	return ""
}

// firstSentence keeps a question short: its first sentence, at most 120 chars.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".?!\n"); i >= 0 && i+1 < len(s) {
		s = s[:i+1]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// changedFields names the fields whose answer differs from the form's
// default: names only, the values are the person's.
func changedFields(params json.RawMessage, answers map[string]any) []string {
	var p struct {
		RequestedSchema struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	var changed []string
	for name, v := range answers {
		def, hasDefault := p.RequestedSchema.Properties[name]["default"]
		if !hasDefault || !reflect.DeepEqual(def, v) {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	return changed
}
