package agent

import (
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// A question the server takes back is taken back from the host too: when
// the server cancels its elicitation/create (as a TypeScript server does
// when the call that asked is aborted), run-mcp tells the host with
// notifications/cancelled naming the request it relayed, so the form the
// person sees can close, and sends the server no answer to the withdrawn
// request. Before, the form stayed open with nobody waiting for it.
func TestAWithdrawnQuestionIsWithdrawnFromTheHost(t *testing.T) {
	t.Parallel()
	withdraw, err := targets.BuildBinary(t.TempDir(), "./test/fixtures/withdraw")
	if err != nil {
		t.Fatal(err)
	}
	h := startRawWith(t, map[string]any{"elicitation": map[string]any{}})
	h.send(t, toolCall("c", "connect_to_mcp", map[string]any{"command": withdraw, "name": "w"}))
	if text, isErr := resultText(t, h.await(t, "c")); isErr {
		t.Fatalf("connect: %s", text)
	}
	h.send(t, toolCall("ask", "call_mcp_primitive", map[string]any{"type": "tool", "name": "ask_and_withdraw"}))
	asked := h.awaitMethod(t, "the relayed elicitation/create", func(m map[string]any) bool { return m["method"] == "elicitation/create" })
	hostID := asked["id"]
	// The host does not answer: the person is still looking at the form.
	cancelled := h.awaitMethod(t, "notifications/cancelled for the relayed question", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "notifications/cancelled" && p != nil && p["requestId"] == hostID
	})
	if reason, _ := cancelled["params"].(map[string]any)["reason"].(string); !strings.Contains(reason, "the tool no longer needs it") {
		t.Errorf("the cancellation's reason is %q, want the server's own reason in it", reason)
	}
	if text, isErr := resultText(t, h.await(t, "ask")); isErr || !strings.HasPrefix(text, "withdrawn ask-") {
		t.Fatalf("the call: got %q (error %v)", text, isErr)
	}
	h.send(t, toolCall("answers", "call_mcp_primitive", map[string]any{"type": "tool", "name": "answers"}))
	if text, isErr := resultText(t, h.await(t, "answers")); isErr || text != "answers: []" {
		t.Errorf("the server got %q (error %v), want no answer to the request it withdrew", text, isErr)
	}
}
