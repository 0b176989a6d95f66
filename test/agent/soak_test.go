package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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

// The host going away (its stdin closed, or SIGTERM) ends run-mcp at once
// even while a call is in flight: the call is cancelled, not waited for.
// Before the fix a call on the express path held run-mcp until the target
// answered it: with a 20 s tool in flight run-mcp took the rest of the 20 s
// to exit (with a 5-minute tool, 5 minutes), its targets running meanwhile.
func TestHostLeavingDoesNotWaitForACallInFlight(t *testing.T) {
	t.Parallel()
	h := start(t)
	pid := pidOf(t, connectDemo(t, h, ""))
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "call_mcp_primitive"
		req.Params.Arguments = map[string]any{"type": "tool", "name": "slow", "arguments": map[string]any{"seconds": 20, "steps": 1}}
		_, _ = h.c.CallTool(context.Background(), req) // ends with the host's close
	}()
	if !eventually(10*time.Second, func() bool {
		text, _ := callText(t, h, "mcp_server_status", map[string]any{})
		return strings.Contains(text, "Calls in flight: 1")
	}) {
		t.Fatal("the slow call never showed as in flight")
	}
	// mcp-go's client waits 5 s after closing stdin before it signals the
	// server: an exit inside that wait is run-mcp leaving by itself. (Before
	// the fix it never did: it waited for the call, and the client's SIGTERM
	// at 5 s ended it.)
	began := time.Now()
	_ = h.close()
	if took := time.Since(began); took >= 4500*time.Millisecond {
		t.Errorf("run-mcp did not leave by itself after its stdin closed with a 20 s call in flight: the client had to stop it (%s)", took.Round(100*time.Millisecond))
	}
	if !eventually(5*time.Second, func() bool { return !running(pid) }) {
		t.Errorf("target PID %d still runs after run-mcp exited", pid)
	}
}

// A call after --idle-timeout closed the only connection says that is what
// happened. Before, it said only "no connection is live; connections:
// default (disconnected)", as for a connection the user had closed.
func TestCallAfterIdleCloseSaysWhy(t *testing.T) {
	t.Parallel()
	h := start(t, "--idle-timeout", "0.01") // 0.6 s
	connectDemo(t, h, "")
	if !eventually(10*time.Second, func() bool {
		text, _ := callText(t, h, "mcp_server_status", map[string]any{})
		return strings.Contains(text, "disconnected")
	}) {
		t.Fatal("the idle connection was never closed")
	}
	text, isErr := callText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "x"}})
	if !isErr || !strings.Contains(text, "NO_CONNECTION") || !strings.Contains(text, "without a call (--idle-timeout)") {
		t.Fatalf("a call after the idle close: got %q (error %v), want NO_CONNECTION saying --idle-timeout closed it", text, isErr)
	}
}
