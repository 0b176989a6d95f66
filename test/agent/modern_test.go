package agent

import (
	"strings"
	"testing"
	"time"
)

// On a 2026-07-28 connection change notifications arrive only on
// subscriptions/listen streams: run-mcp opens one for what the server
// advertises, and subscribe_to_resource opens one per URI.
func TestModernEraListenStreams(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "protocol": "2026-07-28"})
	wantContains(t, "modern connect", text, "Protocol: 2026-07-28 (modern era",
		"list_changed stream: requested toolsListChanged, promptsListChanged, resourcesListChanged (subscriptions/listen); server honored toolsListChanged, promptsListChanged, resourcesListChanged")

	text = mustText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter"})
	wantContains(t, "modern subscribe", text, "Subscribed to demo://counter with a subscriptions/listen stream: the server honored the URI.")
	mustText(t, h, "call_mcp_primitive", tool("bump_counter", nil))
	mustText(t, h, "call_mcp_primitive", tool("add_tool", map[string]any{"name": "fresh_tool"}))
	// resources/updated carries the subscription id of its stream. (mcp-go
	// v1.2.1's server sends tools/list_changed without one, so only its
	// arrival is checked.)
	for method, want := range map[string]string{"notifications/resources/updated": "io.modelcontextprotocol/subscriptionId",
		"notifications/tools/list_changed": "notifications/tools/list_changed"} {
		ok := eventually(5*time.Second, func() bool {
			got := mustText(t, h, "get_server_notifications", map[string]any{"method": method})
			return strings.Contains(got, want)
		})
		if !ok {
			t.Errorf("no %s (with %s) arrived", method, want)
		}
	}
	// The new tool is callable: the list_changed on the stream invalidated the cache.
	if got := mustText(t, h, "call_mcp_primitive", tool("fresh_tool", map[string]any{"message": "x"})); got == "" {
		t.Error("the tool added at run time could not be called")
	}
	text = mustText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter", "unsubscribe": true})
	wantContains(t, "modern unsubscribe", text, "Closed the subscriptions/listen stream for demo://counter")
	text, isErr := callText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter", "unsubscribe": true})
	if !isErr || !strings.Contains(text, "no listen stream is open") {
		t.Errorf("a second unsubscribe: %q", text)
	}
}

// Elicitation in the 2026-07-28 era arrives as input_required and is relayed
// to the host like the legacy request, with its round reported.
func TestModernEraInputRounds(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "protocol": "2026-07-28"})
	text := mustText(t, h, "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true))
	wantContains(t, "modern ask_name", text, `Input round 1: elicitation "What should the demo call you?": accepted`)
}

// A host that speaks 2026-07-28 itself (server/discover, per-request _meta)
// drives run-mcp like a legacy one.
func TestModernHost(t *testing.T) {
	t.Parallel()
	h := startWith(t, hostConfig{modernHost: true})
	if v := h.c.ProtocolVersion(); v != "2026-07-28" {
		t.Fatalf("the host negotiated %q with run-mcp, want 2026-07-28", v)
	}
	connectDemo(t, h, "")
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "modern host"})); got != "echo: modern host" {
		t.Fatalf("echo: %q", got)
	}
	text := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status", text, "Connection default: live")
}
