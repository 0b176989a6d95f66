package agent

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Several named connections: a tool called without one lists them instead
// of guessing; a disconnected one keeps its record without making the live
// one ambiguous; forget drops the record.
func TestNamedConnections(t *testing.T) {
	t.Parallel()
	h := start(t)
	wantContains(t, "connect a", connectDemo(t, h, "a"), "Connection: a")
	wantContains(t, "connect b", connectDemo(t, h, "b"), "Connection: b")
	echo := tool("echo", map[string]any{"message": "hi"})

	text := mustFail(t, h, "call_mcp_primitive", echo)
	if !strings.HasPrefix(text, "CONNECTION_REQUIRED") {
		t.Errorf("a call without connection while two are open should start with CONNECTION_REQUIRED:\n%s", text)
	}
	wantContains(t, "CONNECTION_REQUIRED", text, "a (live)", "b (live)", `the most recently used is "b"`)

	withA := tool("echo", map[string]any{"message": "from a"}, "connection", "a")
	if got := mustText(t, h, "call_mcp_primitive", withA); got != "echo: from a" {
		t.Errorf("connection=a: got %q", got)
	}
	// Using a made it the most recently used.
	text = mustFail(t, h, "call_mcp_primitive", echo)
	wantContains(t, "CONNECTION_REQUIRED after using a", text, "CONNECTION_REQUIRED", `the most recently used is "a"`)

	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "connection", "zzz"))
	if !strings.HasPrefix(text, "NO_CONNECTION") {
		t.Errorf("connection=zzz should start with NO_CONNECTION:\n%s", text)
	}
	wantContains(t, "NO_CONNECTION", text, `"zzz"`)

	// Leave something in b's stderr, then stop b.
	mustText(t, h, "call_mcp_primitive", tool("stderr", map[string]any{"lines": 1}, "connection", "b"))
	text = mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "b"})
	wantContains(t, "disconnect b", text, "Disconnected from MCP server (was PID: ", "stays readable")

	// One live connection: no name needed.
	if got := mustText(t, h, "call_mcp_primitive", echo); got != "echo: hi" {
		t.Errorf("call without connection with one live: got %q", got)
	}
	// b's record still answers.
	ok := eventually(5*time.Second, func() bool {
		text = mustText(t, h, "get_mcp_server_stderr", map[string]any{"connection": "b", "timestamps": false})
		return strings.Contains(text, "stderr line 1")
	})
	if !ok {
		t.Errorf("get_mcp_server_stderr connection=b lost b's stderr after disconnect:\n%s", text)
	}
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status of all", status, "2 connections", "Connection a: live", "Connection b: disconnected")

	// A call on the disconnected record is refused.
	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "connection", "b"))
	wantContains(t, "call on disconnected b", text, "NO_CONNECTION")

	text = mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "b", "forget": true})
	wantContains(t, "forget b", text, "Its record was dropped.")
	text = mustFail(t, h, "get_mcp_server_stderr", map[string]any{"connection": "b"})
	if !strings.HasPrefix(text, "NO_CONNECTION") {
		t.Errorf("after forget, connection=b should be NO_CONNECTION:\n%s", text)
	}
	status = mustText(t, h, "mcp_server_status", nil)
	wantNotContains(t, "status after forget", status, "Connection b")
	wantContains(t, "status after forget", status, "Connection a: live")
}

// --max-connections bounds the open connections; connecting a name that is
// already open is ALREADY_CONNECTED (not a new connection, and never a
// silent replacement), and reconnecting it is fine.
func TestConnectionLimit(t *testing.T) {
	t.Parallel()
	h := start(t, "--max-connections", "1")
	connectDemo(t, h, "a")
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "b"})
	if !strings.HasPrefix(text, "CONNECTION_LIMIT") {
		t.Errorf("a second connection over --max-connections 1 should start with CONNECTION_LIMIT:\n%s", text)
	}
	wantContains(t, "CONNECTION_LIMIT", text, "--max-connections 1", "a")

	// Connecting a again is refused as already connected; restarting it is fine.
	again := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "a"})
	if !strings.HasPrefix(again, "ALREADY_CONNECTED: Already connected") {
		t.Errorf("connect a again: want ALREADY_CONNECTED, got:\n%s", again)
	}
	wantContains(t, "reconnect a", mustText(t, h, "reconnect_to_mcp", map[string]any{"connection": "a"}), "Reconnected to MCP server (PID: ")
	// Once a is stopped, b fits.
	mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "a"})
	wantContains(t, "connect b after a stopped", connectDemo(t, h, "b"), "Connection: b")
}

var pidRE = regexp.MustCompile(`\(PID: (\d+)\)`)

// pidOf reads the PID of a connect or reconnect reply.
func pidOf(t *testing.T, reply string) int {
	t.Helper()
	m := pidRE.FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("no PID in reply:\n%s", reply)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
