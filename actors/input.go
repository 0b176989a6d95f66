package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Round is one client-input round: the target asked the client something
// (a form, a completion, the roots) while calls were in flight.
type Round struct {
	Kind     string        `json:"kind"` // elicitation, sampling, roots
	Question string        `json:"question,omitempty"`
	Outcome  string        `json:"outcome"` // accepted, declined, cancelled, answered, refused
	Changed  []string      `json:"changed_fields,omitempty"`
	Duration time.Duration `json:"-"`
	MS       int64         `json:"duration_ms"`
}

// Line is the round as one line of a reply.
func (r Round) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", r.Kind)
	if r.Question != "" {
		fmt.Fprintf(&b, " %q", r.Question)
	}
	fmt.Fprintf(&b, ": %s", r.Outcome)
	if len(r.Changed) > 0 {
		fmt.Fprintf(&b, " (changed from the defaults: %s)", strings.Join(r.Changed, ", "))
	} else if r.Outcome == "accepted" && r.Kind == "elicitation" {
		b.WriteString(" (defaults kept)")
	}
	fmt.Fprintf(&b, " in %s", fmtDur(r.Duration))
	return b.String()
}

// handleTargetRequest answers the requests a target sends to its client.
// Roots are answered by run-mcp; elicitation and sampling go to the host.
func (c *Conn) handleTargetRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	switch req.Method {
	case string(mcp.MethodPing):
		return result(req.ID, map[string]any{})
	case string(mcp.MethodListRoots):
		return c.answerRoots(ctx, req)
	case string(mcp.MethodElicitationCreate):
		return c.relayElicitation(ctx, req)
	case string(mcp.MethodSamplingCreateMessage):
		return c.relaySampling(ctx, req)
	}
	return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND,
		fmt.Sprintf("run-mcp does not answer %s", req.Method), nil), nil
}

func result(id mcp.RequestId, v any) (*transport.JSONRPCResponse, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the answer: %w", err)
	}
	return &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: b}, nil
}

func decodeParams(req transport.JSONRPCRequest, into any) error {
	b, err := json.Marshal(req.Params)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

func (c *Conn) answerRoots(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	res, err := c.roots(ctx)
	if err != nil {
		return nil, err
	}
	return result(req.ID, res)
}

func (c *Conn) relayElicitation(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	var params mcp.ElicitationParams
	if err := decodeParams(req, &params); err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "elicitation params: "+err.Error(), nil), nil
	}
	res, err := c.elicit(ctx, params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "the client could not ask: "+err.Error(), nil), nil
	}
	return result(req.ID, res)
}

func (c *Conn) relaySampling(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	var params mcp.CreateMessageParams
	if err := decodeParams(req, &params); err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "sampling params: "+err.Error(), nil), nil
	}
	res, err := c.sample(ctx, params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, "sampling refused: "+err.Error(), nil), nil
	}
	return result(req.ID, res)
}

// roots answers with the configured roots, as one "answered" round.
func (c *Conn) roots(ctx context.Context) (*mcp.ListRootsResult, error) {
	roots, err := ask(ctx, c, func(st *connState) []mcp.Root { return st.cfg.Roots })
	if err != nil {
		return nil, err
	}
	if roots == nil {
		roots = []mcp.Root{}
	}
	opened := c.openRound()
	c.closeRound(opened, Round{Kind: "roots", Outcome: "answered", Question: fmt.Sprintf("%d root(s)", len(roots))})
	return &mcp.ListRootsResult{Roots: roots}, nil
}

// elicit relays a form to the host as one round; the clocks of the calls in
// flight are paused while it is open.
func (c *Conn) elicit(ctx context.Context, params mcp.ElicitationParams) (*mcp.ElicitationResult, error) {
	opened := c.openRound()
	res, err := c.env.host.Elicit(ctx, c.name, mcp.ElicitationRequest{Params: params})
	round := Round{Kind: "elicitation", Question: firstSentence(params.Message)}
	if err != nil {
		round.Outcome = "refused"
		c.closeRound(opened, round)
		return nil, err
	}
	round.Outcome = map[mcp.ElicitationResponseAction]string{mcp.ElicitationResponseActionAccept: "accepted",
		mcp.ElicitationResponseActionDecline: "declined", mcp.ElicitationResponseActionCancel: "cancelled"}[res.Action]
	if round.Outcome == "accepted" {
		round.Changed = changedFields(params.RequestedSchema, res.Content)
	}
	c.closeRound(opened, round)
	return res, nil
}

// sample relays a sampling request to the host as one round.
func (c *Conn) sample(ctx context.Context, params mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	opened := c.openRound()
	res, err := c.env.host.Sample(ctx, c.name, mcp.CreateMessageRequest{CreateMessageParams: params})
	round := Round{Kind: "sampling", Question: samplingQuestion(params), Outcome: "answered"}
	if err != nil {
		round.Outcome = "refused"
	}
	c.closeRound(opened, round)
	return res, err
}

// inputHandlers answers the input requests of a 2026-07-28 server, which
// arrive inside results (input_required) and are fulfilled by mcp-go's client
// through these handlers: the same relays and rounds as the legacy requests.
type inputHandlers struct{ c *Conn }

// errInputUnanswerable ends a 2026-07-28 call's rounds: the server asks for
// input that the host cannot give (a headless run declines every form and
// refuses sampling). The call then completes with the server's last
// input_required result, as sent, instead of asking the same question until
// the client's retry limit.
var errInputUnanswerable = errors.New("the server still requires input that no host here can give")

type modernCallKey struct{}

// modernCall is the state of one 2026-07-28 call's input rounds.
type modernCall struct {
	mu         sync.Mutex
	unanswered bool // a form was declined because nobody can fill it in
}

func withModernCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, modernCallKey{}, &modernCall{})
}

func modernCallOf(ctx context.Context) *modernCall {
	mc, _ := ctx.Value(modernCallKey{}).(*modernCall)
	return mc
}

func (m *modernCall) markUnanswered() {
	m.mu.Lock()
	m.unanswered = true
	m.mu.Unlock()
}

func (m *modernCall) wasUnanswered() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unanswered
}

func (h inputHandlers) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	mc := modernCallOf(ctx)
	if mc != nil && mc.wasUnanswered() {
		// The server asks again after the deterministic decline: a second
		// decline would not change its mind.
		return nil, errInputUnanswerable
	}
	res, err := h.c.elicit(ctx, req.Params)
	if mc != nil && err == nil && res.Action == mcp.ElicitationResponseActionDecline && !h.c.env.host.Caps().ElicitForm {
		mc.markUnanswered()
	}
	return res, err
}

func (h inputHandlers) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	res, err := h.c.sample(ctx, req.CreateMessageParams)
	if err != nil && modernCallOf(ctx) != nil {
		// An input response cannot carry a refusal: the rounds end here.
		return nil, fmt.Errorf("%w: sampling refused: %v", errInputUnanswerable, err)
	}
	return res, err
}

func (h inputHandlers) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return h.c.roots(ctx)
}

func samplingQuestion(p mcp.CreateMessageParams) string {
	for _, m := range p.Messages {
		switch c := m.Content.(type) {
		case mcp.TextContent:
			return firstSentence(c.Text)
		case map[string]any:
			if t, ok := c["text"].(string); ok {
				return firstSentence(t)
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
func changedFields(schema any, content any) []string {
	answers, _ := content.(map[string]any)
	props := map[string]any{}
	if m, ok := schema.(map[string]any); ok {
		props, _ = m["properties"].(map[string]any)
	}
	var changed []string
	for name, v := range answers {
		prop, _ := props[name].(map[string]any)
		def, hasDefault := prop["default"]
		if !hasDefault || !reflect.DeepEqual(def, v) {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	return changed
}
