package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// A target that stops reading its stdin stalls nothing else: a call whose
// request does not fit in the pipe waits within its own budget and then
// fails with the timeout, while calls on another connection and requests
// about this one are answered meanwhile.
func TestTargetThatStopsReadingStallsNothingElse(t *testing.T) {
	t.Parallel()
	stuck, err := targets.BuildBinary(t.TempDir(), "./test/fixtures/stuck")
	if err != nil {
		t.Fatal(err)
	}
	h := startRaw(t)
	h.send(t,
		toolCall("deaf", "connect_to_mcp", map[string]any{"command": stuck, "args": []any{"--stop-reading", "tools/call"}, "name": "deaf"}),
		toolCall("demo", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "demo"}))
	for _, id := range []string{"deaf", "demo"} {
		if text, isErr := resultText(t, h.await(t, id)); isErr {
			t.Fatalf("connect %s: %s", id, text)
		}
	}
	// The first call makes the target stop reading; the second does not
	// fit in the pipe behind it.
	big := strings.Repeat("x", 512<<10)
	h.send(t,
		toolCall("deafening", "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"},
			"connection": "deaf", "timeout_ms": 1500}),
		toolCall("stalled", "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": big},
			"connection": "deaf", "timeout_ms": 1500}),
		toolCall("other", "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "still here"},
			"connection": "demo"}),
		toolCall("status", "mcp_server_status", map[string]any{"connection": "deaf"}))
	if text, isErr := resultText(t, h.await(t, "other")); isErr || text != "echo: still here" {
		t.Errorf("call on the other connection: got %q (error %v), want \"echo: still here\"", text, isErr)
	}
	if text, isErr := resultText(t, h.await(t, "status")); isErr || !strings.Contains(text, "deaf") {
		t.Errorf("status of the deaf connection: got %q (error %v)", text, isErr)
	}
	for _, id := range []string{"deafening", "stalled"} {
		text, isErr := resultText(t, h.await(t, id))
		if !isErr || !strings.Contains(text, "The call timed out after 1.5s of server time") {
			t.Errorf("call %s: got %q (error %v), want the timeout", id, text, isErr)
		}
	}
	// The connection is still there for what comes next.
	h.send(t, toolCall("again", "mcp_server_status", map[string]any{"connection": "deaf"}))
	if text, isErr := resultText(t, h.await(t, "again")); isErr {
		t.Errorf("status after the timeout: %s", text)
	}
}

// A connection keeps working after the deadline of an earlier write has
// passed. A call that times out is followed by notifications/cancelled,
// written under a deadline of its own (a second); the plain calls made
// after that deadline take the express path. Before the fix the deadline
// stayed on the target's stdin, and every express call after it failed with
// "The server died during the call: ... i/o timeout" on a target that was
// alive and reading: in a session, 30 s after the handshake at the latest.
func TestConnectionOutlivesAnEarlierWriteDeadline(t *testing.T) {
	t.Parallel()
	h := startRaw(t)
	h.send(t, toolCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "demo"}))
	if text, isErr := resultText(t, h.await(t, "c")); isErr {
		t.Fatalf("connect: %s", text)
	}
	h.send(t, toolCall("timed-out", "call_mcp_primitive", map[string]any{"type": "tool", "name": "slow",
		"arguments": map[string]any{"seconds": 30, "steps": 1}, "timeout_ms": 200}))
	if text, isErr := resultText(t, h.await(t, "timed-out")); !isErr || !strings.Contains(text, "timed out") {
		t.Fatalf("the slow call: got %q (error %v), want its timeout", text, isErr)
	}
	time.Sleep(1500 * time.Millisecond) // past the cancellation's write deadline
	for i := range 3 {
		id := fmt.Sprintf("after-%d", i)
		h.send(t, toolCall(id, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": id}}))
		if text, isErr := resultText(t, h.await(t, id)); isErr || text != "echo: "+id {
			t.Fatalf("call %s after the earlier deadline passed: got %q (error %v)", id, text, isErr)
		}
	}
}
