package agent

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// stderrSince reads get_mcp_server_stderr since=since until it has at least
// n lines (the drain is asynchronous) and returns them with the cursor.
func stderrSince(t *testing.T, h *host, conn string, since, n int) ([]string, int) {
	t.Helper()
	args := map[string]any{"since": since}
	if conn != "" {
		args["connection"] = conn
	}
	var lines []string
	var next int
	var out string
	ok := eventually(10*time.Second, func() bool {
		out = mustText(t, h, "get_mcp_server_stderr", args)
		lines, next = splitStderr(t, out)
		return len(lines) >= n
	})
	if !ok {
		t.Fatalf("get_mcp_server_stderr since=%d never showed %d lines:\n%s", since, n, out)
	}
	return lines, next
}

var stampRE = regexp.MustCompile(`^\d{2}:\d{2}:\d{2}\.\d{3} #(\d+)  (.*)$`)

// unstamp splits a stamped stderr line into its position and text.
func unstamp(t *testing.T, line string) (int, string) {
	t.Helper()
	m := stampRE.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("stderr line %q is not stamped HH:MM:SS.mmm #N", line)
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[2]
}

// wantMarker checks that line is the one marker between two processes.
func wantMarker(t *testing.T, line string, pos, oldPid, newPid int) {
	t.Helper()
	n, text := unstamp(t, line)
	re := regexp.MustCompile(fmt.Sprintf(`^\[--- process %d ended: The server .+\.; process %d started ---\]$`, oldPid, newPid))
	if n != pos || !re.MatchString(text) {
		t.Errorf("line %q: want the marker at #%d matching %s", line, pos, re)
	}
}

// The loop of the specification across reconnects: since=N taken before a
// reconnect shows the marker and then everything the new process wrote,
// at positions that continue from the old process's.
func TestStderrCursorAcrossReconnects(t *testing.T) {
	t.Parallel()
	h := start(t)
	pid := pidOf(t, connectDemo(t, h, "", "--stderr-flood", "5"))
	_, since := stderrSince(t, h, "", 0, 5)
	for round := range 2 {
		newPid := pidOf(t, mustText(t, h, "reconnect_to_mcp", nil))
		lines, next := stderrSince(t, h, "", since, 6)
		if len(lines) != 6 {
			t.Fatalf("round %d: since=%d: want the marker and 5 lines, got:\n%s", round, since, strings.Join(lines, "\n"))
		}
		wantMarker(t, lines[0], since+1, pid, newPid)
		for i, l := range lines[1:] {
			n, text := unstamp(t, l)
			if want := fmt.Sprintf("flood line %d", i+1); n != since+2+i || text != want {
				t.Errorf("round %d: line %q: want #%d %q", round, l, since+2+i, want)
			}
		}
		if next != since+6 {
			t.Errorf("round %d: next: since=%d, want %d", round, next, since+6)
		}
		pid, since = newPid, next
	}
}

// The same loop against a real server: server-everything's start-up line
// is seen again after the reconnect, under the marker, not hidden by the
// cursor.
func TestStderrCursorAcrossReconnectsServerEverything(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	h := start(t)
	pid := pidOf(t, mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": anys(cmd[1:]), "name": "everything"}))
	first, since := stderrSince(t, h, "everything", 0, 1)
	_, startLine := unstamp(t, first[0])
	if !strings.Contains(startLine, "Starting") {
		t.Fatalf("server-everything's first stderr line is %q; the test expects its start-up line", startLine)
	}
	newPid := pidOf(t, mustText(t, h, "reconnect_to_mcp", map[string]any{"connection": "everything"}))
	lines, _ := stderrSince(t, h, "everything", since, 2)
	wantMarker(t, lines[0], since+1, pid, newPid)
	if n, text := unstamp(t, lines[1]); n != since+2 || text != startLine {
		t.Errorf("after the reconnect, since=%d: line %q, want #%d %q", since, lines[1], since+2, startLine)
	}
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// slowDemo is connect_to_mcp arguments for the demo server behind a one
// second start, so a request sent with the connect finds it connecting.
func slowDemo(name string) map[string]any {
	a := map[string]any{"command": "sh", "args": []any{"-c", `sleep 1; exec "$0" demo-server`, bin}}
	if name != "" {
		a["name"] = name
	}
	return a
}

// An agent that issues connect_to_mcp and call_mcp_primitive together gets
// both answered: the call waits for the connect (and for a reconnect)
// instead of failing with NO_CONNECTION.
func TestConnectAndCallSentTogether(t *testing.T) {
	t.Parallel()
	h := startRaw(t)
	echo := func(conn string) map[string]any {
		a := map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "together"}}
		if conn != "" {
			a["connection"] = conn
		}
		return a
	}
	for _, name := range []string{"", "second"} {
		h.send(t, toolCall("connect-"+name, "connect_to_mcp", slowDemo(name)), toolCall("call-"+name, "call_mcp_primitive", echo(name)))
		if text, isErr := resultText(t, h.await(t, "connect-"+name)); isErr || !strings.Contains(text, "Connected to MCP server (PID: ") {
			t.Fatalf("connect %q: %s", name, text)
		}
		if text, isErr := resultText(t, h.await(t, "call-"+name)); isErr || text != "echo: together" {
			t.Errorf("call sent with connect %q: got %q (error %v), want \"echo: together\"", name, text, isErr)
		}
	}
	// Reconnect and call together: the call runs on the new process.
	h.send(t, toolCall("reconnect", "reconnect_to_mcp", map[string]any{"connection": "second"}), toolCall("call-after", "call_mcp_primitive", echo("second")))
	if text, isErr := resultText(t, h.await(t, "reconnect")); isErr {
		t.Fatalf("reconnect: %s", text)
	}
	if text, isErr := resultText(t, h.await(t, "call-after")); isErr || text != "echo: together" {
		t.Errorf("call sent with reconnect: got %q (error %v)", text, isErr)
	}
}

// A call the host cancels while it waits for its connection never runs:
// the demo server's stderr tool, cancelled, writes nothing.
func TestCallCancelledWhileConnectingNeverRuns(t *testing.T) {
	t.Parallel()
	h := startRaw(t)
	write := map[string]any{"type": "tool", "name": "stderr", "arguments": map[string]any{"lines": 3}, "connection": "slow"}
	h.send(t, toolCall("connect", "connect_to_mcp", slowDemo("slow")), toolCall("doomed", "call_mcp_primitive", write))
	// A round trip through run-mcp, so the doomed call is usually waiting
	// in its handler (the connect still sleeps) when the cancel is read.
	h.send(t, toolCall("status", "mcp_server_status", map[string]any{"connection": "slow"}))
	h.await(t, "status")
	h.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": "doomed", "reason": "changed my mind"}})
	if text, isErr := resultText(t, h.await(t, "connect")); isErr {
		t.Fatalf("connect: %s", text)
	}
	h.send(t, toolCall("real", "call_mcp_primitive", map[string]any{"type": "tool", "name": "stderr", "arguments": map[string]any{"lines": 1}, "connection": "slow"}))
	if text, isErr := resultText(t, h.await(t, "real")); isErr || text != "wrote 1 line" {
		t.Fatalf("stderr tool: %q", text)
	}
	// A cancelled request is never answered (MCP: the receiver of a
	// cancellation sends no response); the doomed call was taken up before
	// the real one, so its answer would be in by now.
	h.mu.Lock()
	_, answered := h.replies["doomed"]
	h.mu.Unlock()
	if answered {
		t.Errorf("the cancelled call was answered")
	}
	var out string
	ok := eventually(5*time.Second, func() bool {
		h.send(t, toolCall("read", "get_mcp_server_stderr", map[string]any{"connection": "slow", "timestamps": false}))
		out, _ = resultText(t, h.await(t, "read"))
		h.mu.Lock()
		delete(h.replies, "read")
		h.mu.Unlock()
		return strings.Contains(out, "stderr line 1")
	})
	if !ok {
		t.Fatalf("the uncancelled call's line never showed:\n%s", out)
	}
	if n := strings.Count(out, "stderr line 1"); n != 1 || strings.Contains(out, "stderr line 2") {
		t.Errorf("the cancelled call ran: its lines are in stderr:\n%s", out)
	}
}

// A second connect under a live name is refused with 3.0's words and the
// way to replace it; the live process is untouched. After a disconnect the
// name can be connected again, with the changes since the last connection
// when the connect lists what the server offers.
func TestSecondConnectUnderALiveName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fs, err := targets.ServerFilesystem(dir)
	targets.Require(t, err)
	h := start(t)
	pid := pidOf(t, connectDemo(t, h, "x"))
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "x"})
	wantContains(t, "second connect", text, "ALREADY_CONNECTED: ", "Already connected", fmt.Sprintf("PID: %d", pid),
		"reconnect_to_mcp connection=x", "disconnect_from_mcp connection=x first")
	status := mustText(t, h, "mcp_server_status", map[string]any{"connection": "x"})
	wantContains(t, "status after the refused connect", status, "Connection x: live", fmt.Sprintf("PID: %d,", pid))

	// A real server, same rule.
	fsArgs := map[string]any{"command": fs[0], "args": anys(fs[1:]), "name": "fs"}
	fsPid := pidOf(t, mustText(t, h, "connect_to_mcp", fsArgs))
	wantContains(t, "second connect of server-filesystem", mustFail(t, h, "connect_to_mcp", fsArgs), "Already connected", "reconnect_to_mcp connection=fs")
	wantContains(t, "server-filesystem status", mustText(t, h, "mcp_server_status", map[string]any{"connection": "fs"}), fmt.Sprintf("PID: %d,", fsPid))

	// Over a record: allowed; asked to list, it says what changed since.
	mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "x"})
	again := mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "name": "x", "include": []any{"prompts"}})
	wantContains(t, "connect over a record", again, "Changes since last connection: none")
	if pidOf(t, again) == pid {
		t.Errorf("the connect over a record kept PID %d", pid)
	}
}

// A message over the 64 MB cap is run-mcp closing the connection, with the
// size and a stable code, and status says so at once.
func TestOversizedMessageIsReportedAsRunMCPClosingTheConnection(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustFail(t, h, "call_mcp_primitive", tool("big_text", map[string]any{"chars": 70_000_000}))
	if !regexp.MustCompile(`^MESSAGE_TOO_LARGE: the server sent a message of 7\d,\d{3},\d{3} bytes, over the 64 MB cap`).MatchString(text) {
		t.Errorf("oversized result: got %q", firstLines(text, 3))
	}
	wantContains(t, "oversized result", text, "run-mcp closed the connection")
	wantNotContains(t, "oversized result", text, "died")
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after the oversized message", status, "Connection default: closed (MESSAGE_TOO_LARGE: the server sent a message of", "run-mcp closed the connection")
	wantNotContains(t, "status after the oversized message", status, ": live", "The server died")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// oddServer builds the fixture whose tools close stdout or answer with
// bare base64.
func oddServer(t *testing.T) string {
	t.Helper()
	path, err := targets.BuildBinary(t.TempDir(), "./test/fixtures/oddserver")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// A server that closes its stdout but keeps running is described as such.
func TestStdoutClosedButRunningIsNotDeath(t *testing.T) {
	t.Parallel()
	odd := oddServer(t)
	h := start(t)
	pid := pidOf(t, mustText(t, h, "connect_to_mcp", map[string]any{"command": odd}))
	text := mustFail(t, h, "call_mcp_primitive", tool("close_stdout", nil))
	wantContains(t, "call after stdout closed", text, fmt.Sprintf("closed its stdout but is still running (PID %d)", pid))
	wantNotContains(t, "call after stdout closed", text, "died")
	var status string
	if !eventually(5*time.Second, func() bool {
		status = mustText(t, h, "mcp_server_status", nil)
		return !strings.Contains(status, ": live")
	}) {
		t.Fatalf("status stayed live:\n%s", status)
	}
	wantContains(t, "status", status, fmt.Sprintf("closed its stdout but is still running (PID %d)", pid))
	wantNotContains(t, "status", status, "died")
}

// A text item that is nothing but base64 is saved whatever it decodes to,
// named by its bytes.
func TestBase64TextOfNonImagesIsSaved(t *testing.T) {
	t.Parallel()
	odd := oddServer(t)
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": odd})
	for _, tc := range []struct{ tool, label, ext, magic string }{
		{"pdf_base64", "PDF document", "pdf", "%PDF-"},
		{"zip_base64", "ZIP archive", "zip", "PK\x03\x04"},
	} {
		text := mustText(t, h, "call_mcp_primitive", tool(tc.tool, nil))
		m := regexp.MustCompile(`^\[` + tc.label + ` saved to (\S+\.` + tc.ext + `) \((\d+)KB\)\]$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: got %q, want [%s saved to …%s (NKB)]", tc.tool, firstLines(text, 1), tc.label, tc.ext)
			continue
		}
		data, err := os.ReadFile(m[1])
		if err != nil || !strings.HasPrefix(string(data), tc.magic) || len(data) < 6000 {
			t.Errorf("%s: saved file %s: %d bytes, err %v", tc.tool, m[1], len(data), err)
		}
	}
}

// A bad cwd is named as the missing directory, and the failed connect
// still says what the host forwards.
func TestBadCwdIsNamed(t *testing.T) {
	t.Parallel()
	h := start(t)
	missing := t.TempDir() + "/no/such/dir"
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "cwd": missing})
	wantContains(t, "connect with a bad cwd", text, "the working directory "+missing+" does not exist (cwd), so nothing was started. "+
		"Pass an existing directory as cwd, or leave cwd out to start the server in run-mcp's own working directory\n",
		"Client input forwarded to your host: ")
	wantNotContains(t, "connect with a bad cwd", text, "fork/exec")
}

// A reconnect that touched no process never says the old one is gone; one
// that stopped a live process says which.
func TestReconnectErrorsSayWhatWasTouched(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustFail(t, h, "reconnect_to_mcp", map[string]any{"connection": "nosuch"})
	wantNotContains(t, "reconnect of an unknown name", text, "old process is gone", "was stopped")
	pid := pidOf(t, connectDemo(t, h, ""))
	// A 1 ms handshake budget fails the new process after the old one was
	// stopped.
	text = mustFail(t, h, "reconnect_to_mcp", map[string]any{"connect_timeout_ms": 1})
	wantContains(t, "failed reconnect", text, fmt.Sprintf("The old process was stopped first (stopped PID %d)", pid))
	wantNotContains(t, "failed reconnect", text, "old process is gone")
	// Now nothing runs: the next failed reconnect says so.
	text = mustFail(t, h, "reconnect_to_mcp", map[string]any{"connect_timeout_ms": 1})
	wantContains(t, "second failed reconnect", text, "No process was running before this attempt")
}

// "Most recently used" is named also when it is not live, with its state,
// since it is what the user last worked on; once forgotten, it is not.
func TestMostRecentlyUsedIsNamedWithItsState(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, n := range []string{"a", "b", "c"} {
		connectDemo(t, h, n)
	}
	mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "b"}) // b is now the most recently used
	text := mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "x"}))
	wantContains(t, "call without a connection", text, "CONNECTION_REQUIRED: 2 connections are open: a (live), c (live)",
		`the most recently used is "b" (disconnected)`)
	wantContains(t, "status", mustText(t, h, "mcp_server_status", nil), "3 connections; most recently used: b")
	mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": "b", "forget": true})
	status := mustText(t, h, "mcp_server_status", nil)
	wantNotContains(t, "status after forgetting b", status, "most recently used: b")
	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "x"}))
	wantNotContains(t, "call after forgetting b", text, `"b"`)
}

// A reconnect_to_mcp without a name, with several records and none live,
// is asked to name the one to restart: never told to call the tool it is.
func TestNamelessReconnectIsAskedForAName(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, n := range []string{"a", "b"} {
		connectDemo(t, h, n)
	}
	for _, n := range []string{"a", "b"} {
		mustText(t, h, "disconnect_from_mcp", map[string]any{"connection": n})
	}
	text := mustFail(t, h, "reconnect_to_mcp", nil)
	wantContains(t, "nameless reconnect", text, "CONNECTION_REQUIRED: ", "a (disconnected), b (disconnected)",
		`the most recently used is "b"`, "Pass connection to name the one to restart")
	wantNotContains(t, "nameless reconnect", text, "reconnect_to_mcp")
	// Other tools are still told how to restart one.
	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "x"}))
	wantContains(t, "call with no connection live", text, "NO_CONNECTION: ", "reconnect_to_mcp to restart one", `the most recently used is "b"`)
}

// Bad values are INVALID_ARGUMENT, never a silent default.
func TestBadValuesAreInvalidArgument(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"connect_to_mcp", map[string]any{"command": bin, "connect_timeout_ms": -1}, "connect_timeout_ms must be 0 or more"},
		{"get_mcp_server_stderr", map[string]any{"since": -1}, "since must be 0 or more"},
		{"get_mcp_server_stderr", map[string]any{"lines": -5}, "lines must be 1 or more"},
		{"get_mcp_server_stderr", map[string]any{"lines": 0}, "lines must be 1 or more, got the number 0"},
		{"connect_to_mcp", map[string]any{"command": bin, "name": ""}, "name must not be empty"},
		{"call_mcp_primitive", map[string]any{"type": "tool", "name": ""}, "name must not be empty"},
		{"call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "a"}, "args": map[string]any{"message": "b"}},
			"takes arguments or its alias args, not both"},
		{"connect_to_mcp", map[string]any{"command": bin, "roots": []any{map[string]any{"uri": "/tmp/project"}}}, "must be a file:// URI"},
		{"reconnect_to_mcp", map[string]any{"roots": []any{map[string]any{"uri": "https://example.com"}}}, "must be a file:// URI"},
		{"connect_to_mcp", map[string]any{"command": bin, "name": "a\x1b[31mb"}, "name must not contain control characters"},
	} {
		text := mustFail(t, h, tc.tool, tc.args)
		if !strings.HasPrefix(text, "INVALID_ARGUMENT: ") || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: got %q, want INVALID_ARGUMENT … %s", tc.tool, tc.args, text, tc.want)
		}
	}
	if st := mustText(t, h, "mcp_server_status", nil); !strings.HasPrefix(st, "No target server connected.") {
		t.Errorf("a refused argument started something:\n%s", st)
	}
}

// disconnect_after is recorded as such, and the agent server speaks of its
// protocol argument.
func TestDisconnectAfterAndProtocolWording(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "protocol": "auto"})
	wantContains(t, "connect with protocol=auto", reply, "asked with protocol=auto")
	wantNotContains(t, "connect with protocol=auto", reply, "--protocol")
	mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "bye"}, "disconnect_after", true))
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after disconnect_after", status, "Connection default: disconnected (it was closed by disconnect_after")
}
