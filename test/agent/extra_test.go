package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// While a form is open every call's clock is paused, and a timeout message
// says how much client wait it excluded.
func TestTimeoutMessageNamesExcludedWait(t *testing.T) {
	t.Parallel()
	h := startWith(t, hostConfig{elicit: answerAfter(600*time.Millisecond, mcp.ElicitationResponseActionAccept,
		map[string]any{"name": "friend", "colour": "blue"})})
	connectDemo(t, h, "")
	done := make(chan string, 1)
	go func() {
		res, err := h.c.CallTool(t.Context(), callRequest("call_mcp_primitive", tool("slow", map[string]any{"seconds": 5}, "timeout_ms", 1000)))
		if err != nil {
			done <- "protocol error: " + err.Error()
			return
		}
		done <- fmt.Sprintf("isError=%v %s", res.IsError, joinText(res))
	}()
	if !eventually(3*time.Second, func() bool {
		return strings.Contains(mustText(t, h, "mcp_server_status", nil), "Calls in flight: 1")
	}) {
		t.Fatal("the slow call never showed as in flight")
	}
	text := mustText(t, h, "call_mcp_primitive", tool("ask_name", nil))
	wantContains(t, "ask_name", text, "accepted: name=friend colour=blue")
	select {
	case got := <-done:
		wantContains(t, "the timed-out call", got, "isError=true", "The call timed out after 1.0s of server time (", "waiting on client input was excluded)")
	case <-time.After(10 * time.Second):
		t.Fatal("the slow call under timeout_ms 1000 never returned")
	}
}

func TestListPrimitives(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "name": "ech", "summary": true})
	wantContains(t, "list tools named ech", text, "default offers 17 tools, 1 resource, 1 resource template, 1 prompt", "--- Tools ---\n- echo: Echoes the message back.")
	text = mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"prompts", "resource_templates"}})
	wantContains(t, "list prompts and templates", text, `"name": "greet"`, `"uriTemplate": "demo://echo/{text}"`)
	// add_tool changes the list at run time; the call check refreshes it.
	mustText(t, h, "call_mcp_primitive", tool("add_tool", map[string]any{"name": "late_tool"}))
	if got := mustText(t, h, "call_mcp_primitive", tool("late_tool", map[string]any{"message": "x"})); got != "late_tool: x" {
		t.Errorf("a tool added at run time: got %q", got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs()})
	wantContains(t, "validate a good server", text, "Validation Result: SUCCESS\nStatus: PASS", "Server: run-mcp-demo 1.0.0", "Tools Count: 17", "Protocol: 2025-11-25 (legacy era)")

	text, _ = callText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs("--stdout-noise", "debug: booting")})
	wantContains(t, "validate a noisy server", text, "Validation Result: FAILED", "stdout_protocol_channel", "debug: booting")

	text, _ = callText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs("--crash-at-start", "no config")})
	wantContains(t, "validate a crashing server", text, "Validation Result: FAILED", "The server exited with code 1.", "demo-server: fatal: no config")

	// validate never touches the agent's connections.
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after validate", status, "No target server connected.")
}

// -m -1 keeps media inline.
func TestMediaKeptInline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, "-o", dir, "-m", "-1")
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("image", nil))
	if len(res.Content) != 1 {
		t.Fatalf("image: %d items", len(res.Content))
	}
	img, ok := res.Content[0].(mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" || img.Data == "" {
		t.Errorf("with -m -1 the image should pass inline; got %#v", res.Content[0])
	}
}

// log_level is sent to the server, so its debug messages reach the host.
func TestLogLevel(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "log_level": "debug"})
	if got := mustText(t, h, "call_mcp_primitive", tool("log", map[string]any{"level": "debug", "message": "fine detail"})); got != "logged" {
		t.Errorf("log at debug after log_level=debug: %q", got)
	}
	ok := eventually(3*time.Second, func() bool {
		for _, n := range h.notifications() {
			if n.Method == "notifications/message" && n.Params.AdditionalFields["data"] == "fine detail" {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Errorf("the debug message never reached the host")
	}
}
