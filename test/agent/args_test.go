package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// run-mcp's own tools take closed schemas: a misspelt or mistyped argument
// is INVALID_ARGUMENT and nothing runs.
func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	h := start(t)

	text := mustFail(t, h, "connect_to_mcp", map[string]any{"comand": "x"})
	if !strings.HasPrefix(text, "INVALID_ARGUMENT") {
		t.Errorf("connect_to_mcp {comand} should start with INVALID_ARGUMENT:\n%s", text)
	}
	wantContains(t, "connect_to_mcp {comand}", text, "command")
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after a refused connect", status, "No target server connected.")

	// With the required argument present, the misspelling itself is named.
	text = mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "arg": []any{"demo-server"}})
	wantContains(t, "connect_to_mcp {arg}", text, "INVALID_ARGUMENT", `"arg"`, `did you mean "args"?`)
	status = mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after a refused connect", status, "No target server connected.")

	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "timeout_ms", "5s"))
	if !strings.HasPrefix(text, "INVALID_ARGUMENT") {
		t.Errorf("timeout_ms:\"5s\" should start with INVALID_ARGUMENT:\n%s", text)
	}
	wantContains(t, "timeout_ms:\"5s\"", text, "timeout_ms")

	text = mustFail(t, h, "call_mcp_primitive", map[string]any{"type": "function", "name": "echo"})
	wantContains(t, "type:function", text, "INVALID_ARGUMENT", "type")

	// Checks against the target's own tool list, before anything is sent.
	connectDemo(t, h, "")
	text = mustFail(t, h, "call_mcp_primitive", tool("ecko", map[string]any{"message": "hi"}))
	if !strings.HasPrefix(text, "UNKNOWN_TOOL") {
		t.Errorf("an unknown tool should start with UNKNOWN_TOOL:\n%s", text)
	}
	wantContains(t, "unknown tool", text, `Tool "ecko" not found.`, `Did you mean "echo"?`)

	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"msg": "hi"}))
	wantContains(t, "missing argument", text, "INVALID_ARGUMENT", `Tool "echo" requires: message`, `Received: {"msg":"hi"}`)

	// The refusals touched nothing: the target still answers.
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "ok"})); got != "echo: ok" {
		t.Errorf("echo after refused calls: got %q", got)
	}
}

// A tool run-mcp does not have is UNKNOWN_TOOL with a did-you-mean and the
// list of its tools.
func TestUnknownOwnTool(t *testing.T) {
	t.Parallel()
	h := start(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = "conect_to_mcp"
	_, err := h.c.CallTool(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), `UNKNOWN_TOOL: run-mcp has no tool "conect_to_mcp". Did you mean "connect_to_mcp"?`) ||
		!strings.Contains(err.Error(), "validate_mcp_server") {
		t.Fatalf("unknown tool: %v", err)
	}
}
