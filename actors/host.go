package actors

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/oauth"
)

// Host is whoever stands behind run-mcp: the agent's MCP client (the agent
// server relays to it) or nobody (headless, which answers at once).
type Host interface {
	// Caps says what the host declared, so run-mcp knows what a target's
	// request will reach.
	Caps() HostCaps
	// Ask relays a target's question and returns one answer per item, in
	// order. It may wait for a person; it returns when ctx ends (the
	// question was withdrawn: its call or its server ended) with errors.
	Ask(ctx context.Context, q Question) []Answer
	// Notify forwards a notification the target sent, its params as sent.
	// It must not block: the actor calls it.
	Notify(conn, method string, params json.RawMessage)
}

// HostCaps is what the host declared.
type HostCaps struct {
	ElicitForm bool
	ElicitURL  bool
	Sampling   bool
}

// Question is a target's request for client input, on its way to the host.
type Question struct {
	Conn  string
	Items []Item // asked together (a 2026-07-28 input_required may ask several)
	// Carriers are the Tags of the calls whose answers the question may
	// ride on, oldest first: the one call it belongs to or, when it names
	// none, every call it pauses (none when no call is in flight).
	Carriers []any
	// Paused is how many calls it pauses; Shared says it names none of
	// them (a 2025-era request on stdio with several in flight).
	Paused int
	Shared bool
}

// Item is one question: elicitation/create or sampling/createMessage, with
// its params as the target sent them.
type Item struct {
	Method string
	Params json.RawMessage
	// Authorize marks run-mcp's own question: a URL-mode elicitation that
	// asks the person to authorize run-mcp with an HTTP target's
	// authorization server (nil for a target's question). A front end that
	// can open a browser opens Authorize.URL itself.
	Authorize *oauth.Visit
}

// IsURL says an elicitation asks the person to open a URL.
func (it Item) IsURL() bool {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(it.Params, &p)
	return p.Mode == "url"
}

// Answer is the host's answer to one Item: the result to give the target,
// or why there is none.
type Answer struct {
	Result json.RawMessage
	Err    error
	// NoOneToAsk marks a decline given at once because nobody here can
	// answer (headless, or a host that declared no such input).
	NoOneToAsk bool
}

// ErrNoHost is what a request for input meets when no host can answer it.
var ErrNoHost = errors.New("no host can answer: nobody stands behind this run-mcp (headless), so sampling is refused")

// Headless is the host of a headless call: nobody is there, so elicitation is
// declined and sampling refused at once, never left hanging.
type Headless struct{}

// Caps declares nothing.
func (Headless) Caps() HostCaps { return HostCaps{} }

// Ask declines every form and refuses sampling.
func (Headless) Ask(_ context.Context, q Question) []Answer {
	out := make([]Answer, len(q.Items))
	for i, it := range q.Items {
		out[i] = Decline(it)
	}
	return out
}

// Decline is the deterministic answer to an item nobody can answer: a
// declined form, a refused sampling request.
func Decline(it Item) Answer {
	if it.Method == string(mcp.MethodElicitationCreate) {
		return Answer{Result: json.RawMessage(`{"action":"decline"}`), NoOneToAsk: true}
	}
	return Answer{Err: ErrNoHost, NoOneToAsk: true}
}

// Notify drops the notification (the notification log still has it).
func (Headless) Notify(string, string, json.RawMessage) {}
