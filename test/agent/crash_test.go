package agent

import (
	"strings"
	"testing"
)

// A server that dies in the middle of a call: the call says so with the
// exit and the stderr, status says dead, stderr stays readable, and a
// reconnect brings it back.
func TestCrashDuringCall(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")

	text := mustFail(t, h, "call_mcp_primitive", tool("crash", map[string]any{"code": 3}))
	wantContains(t, "crash reply", text,
		"The server died during the call",
		"The server exited with code 3.",
		"--- Target server stderr (this is almost certainly the cause) ---",
		"demo-server: crashing on purpose in a call (exit 3)",
	)
	// The heading comes before the stderr it introduces.
	if i, j := strings.Index(text, "--- Target server stderr"), strings.Index(text, "crashing on purpose"); i < 0 || j < i {
		t.Errorf("the crash line is not under the stderr heading:\n%s", text)
	}

	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after the crash", status, "Connection default: dead", "The server exited with code 3.",
		"--- Target server stderr (this is almost certainly the cause) ---", "crashing on purpose in a call (exit 3)")

	stderr := mustText(t, h, "get_mcp_server_stderr", nil)
	wantContains(t, "stderr after the crash", stderr, "demo-server: crashing on purpose in a call (exit 3)", "next: since=")

	// A call on the dead connection is refused with the reason, not sent.
	dead := mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}))
	wantContains(t, "call on a dead connection", dead, "NO_CONNECTION", "reconnect_to_mcp")

	reply := mustText(t, h, "reconnect_to_mcp", nil)
	wantContains(t, "reconnect after the crash", reply, "Reconnected to MCP server (PID: ")
	wantLines(t, "reconnect after the crash", reply, "Changes since last connection: none")
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "again"})); got != "echo: again" {
		t.Errorf("echo after reconnect: got %q", got)
	}
	status = mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after reconnect", status, "Connection default: live")
}

// A server that dies before the handshake: the connect failure carries how
// it ended and its stderr.
func TestCrashAtStart(t *testing.T) {
	t.Parallel()
	h := start(t)
	reason := "Cannot find module './db-config.js'"
	text := mustFail(t, h, "connect_to_mcp", map[string]any{
		"command": bin, "args": demoArgs("--crash-at-start", reason),
	})
	wantContains(t, "connect failure", text,
		"Failed to connect: Connection closed",
		"The server exited with code 1.",
		"--- Target server stderr (this is almost certainly the cause) ---",
		"demo-server: fatal: "+reason,
	)
	if !strings.HasPrefix(text, "Failed to connect: Connection closed\n") {
		t.Errorf("connect failure does not start with the reason:\n%s", text)
	}
	if !strings.Contains(text, "Command: "+bin+" demo-server --crash-at-start") {
		t.Errorf("connect failure does not name the command:\n%s", text)
	}

	// The record of the failed start keeps its stderr and says why.
	stderr := mustText(t, h, "get_mcp_server_stderr", nil)
	wantContains(t, "stderr of the failed start", stderr, "demo-server: fatal: "+reason)
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status of the failed start", status, "failed", "The server exited with code 1.",
		"Protocol: none agreed (the handshake did not complete)")
}

// A stray console.log on stdout is reported wherever the agent looks.
func TestStdoutNoise(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := connectDemo(t, h, "", "--stdout-noise", "debug: booting")
	wantContains(t, "connect reply", reply, "--- stdout noise: 1 line(s) on stdout that are not JSON-RPC", "stdout line 1: debug: booting")

	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status", status, "stdout noise", "debug: booting")

	stderr := mustText(t, h, "get_mcp_server_stderr", nil)
	wantContains(t, "get_mcp_server_stderr", stderr, "stdout noise", "debug: booting")

	// The server still works: the noise is reported, not fatal.
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"})); got != "echo: hi" {
		t.Errorf("echo: got %q", got)
	}
}
