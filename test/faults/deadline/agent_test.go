//go:build !windows

package deadline

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// agentHost drives run-mcp's agent server over stdio as a coding agent's
// MCP client would.
type agentHost struct {
	c      *client.Client
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (h *agentHost) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.Write(p)
}

func startAgent(t *testing.T, flags ...string) *agentHost {
	t.Helper()
	h := &agentHost{}
	args := append([]string{"-o", t.TempDir()}, flags...)
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.Command(command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stderr = h
		return cmd, nil
	}
	h.c = client.NewClient(transport.NewStdioWithOptions(bin, nil, args, transport.WithCommandFunc(cmdFunc)),
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := h.c.Start(context.Background()); err != nil {
		t.Fatalf("start the agent server: %v", err)
	}
	t.Cleanup(func() { _ = h.c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "deadline-test-host", Version: "1.0.0"}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := h.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize the agent server: %v", err)
	}
	return h
}

// call calls one of run-mcp's tools, bounded by patience, and returns its
// text and whether it was an error.
func (h *agentHost) call(t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := h.c.CallTool(ctx, req)
	if err != nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Fatalf("%s: %v (hung or failed)\nrun-mcp stderr:\n%s", tool, err, h.stderr.String())
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func stuckArgs(flags ...string) []any {
	out := make([]any, len(flags))
	for i, f := range flags {
		out[i] = f
	}
	return out
}

// connect_to_mcp with include=[tools] against a server that never lists its
// tools fails naming tools/list, its budget and the parameter to change it.
func TestAgentConnectNamesTheUnansweredListing(t *testing.T) {
	t.Parallel()
	h := startAgent(t)
	text, isErr := h.call(t, "connect_to_mcp", map[string]any{"command": stuck, "args": stuckArgs("--never", "tools/list"),
		"include": []any{"tools"}, "request_timeout_ms": 1500})
	if !isErr {
		t.Fatalf("want an error result:\n%s", text)
	}
	wantAll(t, "connect_to_mcp", text, "tools/list got no answer within 1500 ms", "request_timeout_ms", "get_mcp_server_stderr", "stuck: got tools/list")
}

// The agent server's --request-timeout is the default of every connection;
// validate_mcp_server takes request_timeout_ms too.
func TestAgentDefaultBudgetAndValidate(t *testing.T) {
	t.Parallel()
	h := startAgent(t, "--request-timeout", budget)
	text, isErr := h.call(t, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo",
		"auto_connect": map[string]any{"command": stuck, "args": stuckArgs("--never", "tools/list")}})
	if !isErr {
		t.Fatalf("auto_connect to a server that never lists its tools must fail:\n%s", text)
	}
	wantAll(t, "call_mcp_primitive auto_connect", text, "tools/list got no answer within 1500 ms")
	text, _ = h.call(t, "validate_mcp_server", map[string]any{"command": stuck, "args": stuckArgs("--never", "prompts/list"), "request_timeout_ms": 1500})
	wantAll(t, "validate_mcp_server", text, "Validation Result: FAIL", "prompts/list got no answer within 1500 ms", "request_timeout_ms")
}

// call_mcp_primitive against a server that never answers the call ends
// with 3.0's "timed out", naming the request and timeout_ms; status names
// both budgets; the connection survives.
func TestAgentCallsAndStatusBudgets(t *testing.T) {
	t.Parallel()
	h := startAgent(t)
	text, isErr := h.call(t, "connect_to_mcp", map[string]any{"command": stuck,
		"args": stuckArgs("--never", "tools/call,resources/read,prompts/get"), "request_timeout_ms": 1500})
	if isErr {
		t.Fatalf("connect: %s", text)
	}
	for _, c := range []struct{ kind, name, method string }{
		{"tool", "echo", "tools/call"}, {"resource", "stuck://note", "resources/read"}, {"prompt", "hello", "prompts/get"},
	} {
		text, isErr = h.call(t, "call_mcp_primitive", map[string]any{"type": c.kind, "name": c.name, "timeout_ms": 1500})
		if !isErr {
			t.Errorf("%s: want an error result:\n%s", c.method, text)
		}
		wantAll(t, c.method, text, "timed out", c.method+" got no answer within its 1500 ms budget", "timeout_ms", "stuck: got "+c.method)
	}
	text, _ = h.call(t, "mcp_server_status", map[string]any{})
	wantAll(t, "mcp_server_status", text, "Connection default: live", "Budgets: calls 300000 ms", "housekeeping requests (listings, subscribe, listen, ping) 1500 ms", "request_timeout_ms")
}
