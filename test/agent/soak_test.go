package agent

import (
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// --idle-timeout counts from the end of the last call, not its start. A
// call that runs longer than the idle timeout is in flight the whole time,
// so it is never closed under; before the fix the idle clock started with
// the call, and the connection was closed "after 1.2s without a call" a
// tick after the call ended, failing the very next call with NO_CONNECTION.
func TestIdleTimeoutCountsFromTheEndOfTheLastCall(t *testing.T) {
	t.Parallel()
	h := start(t, "--idle-timeout", "0.02") // 1.2 s
	connectDemo(t, h, "")
	text, isErr := callText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "slow",
		"arguments": map[string]any{"seconds": 2, "steps": 1}})
	if isErr {
		t.Fatalf("slow call: %s", text)
	}
	time.Sleep(500 * time.Millisecond) // well within the idle timeout, but past a tick of its check
	text, isErr = callText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo",
		"arguments": map[string]any{"message": "0.5 s after"}})
	if isErr || !strings.Contains(text, "echo: 0.5 s after") {
		t.Fatalf("a call 0.5 s after a call longer than --idle-timeout: got %q (error %v), want its echo", text, isErr)
	}
}

// A 2026-07-28 connection over Streamable HTTP opens its listen streams
// with the Mcp-Method header the revision requires on every POST. run-mcp
// sends subscriptions/listen (and its other raw requests) itself, past
// mcp-go's client, which is what adds the header; before the fix a server
// that checks it (mcp-go's does) refused each one with -32020 "header
// mismatch: Mcp-Method: missing required header", so the connection got no
// change notifications and subscribe_to_resource failed.
func TestModernHTTPListenStreamsCarryTheMethodHeader(t *testing.T) {
	t.Parallel()
	url := targets.StartHTTPDemo(t, bin)
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": url, "protocol": "2026-07-28"})
	text, isErr := callText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter"})
	if isErr || !strings.Contains(text, "honored") {
		t.Fatalf("subscribe over modern HTTP: got %q (error %v), want the stream honored", text, isErr)
	}
	mustText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "add_tool", "arguments": map[string]any{"name": "shiny"}})
	mustText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "bump_counter", "arguments": map[string]any{}})
	for _, method := range []string{"notifications/tools/list_changed", "notifications/resources/updated"} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			got := mustText(t, h, "get_server_notifications", map[string]any{"method": method})
			if strings.Contains(got, `"method": "`+method+`"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s arrived over the listen streams within 10 s:\n%s", method, got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
