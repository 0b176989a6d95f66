package agent

import (
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

func TestHTTPTargetFromTheAgent(t *testing.T) {
	url := targets.StartHTTPDemo(t, bin)
	h := start(t)
	text := mustText(t, h, "connect_to_mcp", map[string]any{"command": url})
	if !strings.Contains(text, "Transport: streamable-http") || !strings.Contains(text, "no stderr") {
		t.Fatalf("the connect reply must say what an HTTP target cannot give:\n%s", text)
	}
	if got := mustText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}}); !strings.Contains(got, "echo: hi") {
		t.Fatalf("call over HTTP: %s", got)
	}
	if got := mustText(t, h, "get_mcp_server_stderr", map[string]any{}); !strings.Contains(got, "no process") {
		t.Fatalf("stderr of an HTTP target must say there is none: %s", got)
	}
}
