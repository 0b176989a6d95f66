package agent

import (
	"strings"
	"testing"
	"time"
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
