package agent

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Stderr keeps the first 100 and the last 1,000 lines, with a marker in
// the gap, and lines=N gives the last N.
func TestStderrHeadAndTail(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "", "--stderr-flood", "1237")
	var out string
	ok := eventually(5*time.Second, func() bool {
		out = mustText(t, h, "get_mcp_server_stderr", map[string]any{"timestamps": false})
		return strings.HasSuffix(out, "next: since=1237")
	})
	if !ok {
		t.Fatalf("the flood never fully arrived:\n%s", tail(out, 300))
	}
	lines, _ := splitStderr(t, out)
	if len(lines) != 1101 {
		t.Errorf("got %d lines, want 100 + marker + 1,000", len(lines))
	}
	if len(lines) > 101 {
		if lines[0] != "flood line 1" || lines[99] != "flood line 100" {
			t.Errorf("head: %q … %q", lines[0], lines[99])
		}
		if want := "[... 137 of 1,237 lines elided ...]"; lines[100] != want {
			t.Errorf("marker %q, want %q", lines[100], want)
		}
		if lines[101] != "flood line 238" || lines[len(lines)-1] != "flood line 1237" {
			t.Errorf("tail: %q … %q", lines[101], lines[len(lines)-1])
		}
	}
	last := mustText(t, h, "get_mcp_server_stderr", map[string]any{"lines": 2, "timestamps": false})
	if want := "flood line 1236\nflood line 1237\nnext: since=1237"; last != want {
		t.Errorf("lines=2: got %q, want %q", last, want)
	}
}

// The stderr relay to the host: batches of at most 20 lines, with a
// pointer for the rest, tagged with the connection.
func TestStderrRelayedToHost(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "relay", "--stderr-flood", "50")
	var relayed []mcp.JSONRPCNotification
	ok := eventually(5*time.Second, func() bool {
		relayed = nil
		for _, n := range h.notifications() {
			if n.Method == "notifications/message" && n.Params.AdditionalFields["logger"] == "target-stderr" {
				relayed = append(relayed, n)
			}
		}
		return len(relayed) > 0
	})
	if !ok {
		t.Fatalf("no stderr relay reached the host; got %d notification(s)", len(h.notifications()))
	}
	first := relayed[0]
	data, _ := first.Params.AdditionalFields["data"].(string)
	lines := strings.Split(data, "\n")
	if len(lines) > 21 {
		t.Errorf("one relay message carries %d lines, want at most 20 plus a pointer", len(lines))
	}
	wantContains(t, "relay message", data, "flood line 1", "30 more line(s): get_mcp_server_stderr connection=relay since=20")
	if meta, _ := first.Params.Meta["run-mcp/connection"].(string); meta != "relay" {
		t.Errorf("relay _meta run-mcp/connection = %v, want relay (params %v)", first.Params.Meta, first.Params.AdditionalFields)
	}
}

// A target's notifications reach the host as logging messages tagged with
// the connection, and stay in the notification log.
func TestNotificationsForwarded(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "fwd")
	mustText(t, h, "call_mcp_primitive", tool("log", map[string]any{"level": "error", "message": "disk full"}))
	var got *mcp.JSONRPCNotification
	ok := eventually(3*time.Second, func() bool {
		for _, n := range h.notifications() {
			if n.Method == "notifications/message" && strings.HasPrefix(fmt.Sprint(n.Params.AdditionalFields["logger"]), "run-mcp/fwd/") &&
				n.Params.AdditionalFields["data"] == "disk full" {
				got = &n
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("the server's log message never reached the host: %v", h.notifications())
	}
	if got.Params.AdditionalFields["level"] != "error" {
		t.Errorf("forwarded level %v, want error", got.Params.AdditionalFields["level"])
	}
	if meta, _ := got.Params.Meta["run-mcp/connection"].(string); meta != "fwd" {
		t.Errorf("forwarded _meta run-mcp/connection = %v, want fwd", got.Params.Meta)
	}
	notes := mustText(t, h, "get_server_notifications", map[string]any{"method": "notifications/message"})
	wantContains(t, "notification log", notes, "1 of 1 matching notification(s)", "disk full")
}

// Subscriptions: subscribe, trigger a change, see resources/updated.
func TestSubscribeToResource(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter"})
	wantContains(t, "subscribe", text, "Subscribed to demo://counter.")
	mustText(t, h, "call_mcp_primitive", tool("bump_counter", nil))
	var notes string
	ok := eventually(3*time.Second, func() bool {
		notes = mustText(t, h, "get_server_notifications", map[string]any{"method": "resources/updated"})
		return strings.Contains(notes, "demo://counter")
	})
	if !ok {
		t.Errorf("no resources/updated after bump_counter:\n%s", notes)
	}
	text = mustText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter", "unsubscribe": true})
	wantContains(t, "unsubscribe", text, "Unsubscribed from demo://counter.")
}

// call_mcp_primitive reads resources (name = URI) and gets prompts.
func TestReadResource(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	mustText(t, h, "call_mcp_primitive", tool("bump_counter", nil))

	res := h.call(t, "call_mcp_primitive", map[string]any{"type": "resource", "name": "demo://counter"})
	text := joinText(res)
	if res.IsError || text != "1" {
		t.Errorf("read demo://counter: got %q (isError %v), want \"1\"", text, res.IsError)
	}
	if got := mustText(t, h, "call_mcp_primitive", map[string]any{"type": "resource", "name": "demo://echo/hello"}); got != "hello" {
		t.Errorf("read demo://echo/hello: got %q", got)
	}
}

func TestPrompt(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", map[string]any{"type": "prompt", "name": "greet", "arguments": map[string]any{"name": "Ada"}})
	text := joinText(res)
	if want := "[DESCRIPTION] A greeting\n[USER MESSAGE] Say hello to Ada."; res.IsError || text != want {
		t.Errorf("get greet: got %q (isError %v), want %q", text, res.IsError, want)
	}
}

// A reconnect whose new code fails to start carries the exit and stderr;
// the record stays, and the next reconnect diffs against the last good
// listing.
func TestReconnectFailure(t *testing.T) {
	t.Parallel()
	h := start(t)
	toolsFile := tempFile(t, "tools.txt", "extra_one\n")
	connectDemo(t, h, "", "--tools-file", toolsFile)

	writeFile(t, toolsFile, "not a tool name!\n")
	text := mustFail(t, h, "reconnect_to_mcp", nil)
	wantContains(t, "failed reconnect", text,
		"Failed to reconnect:",
		"The server exited with code ",
		"--- Target server stderr (this is almost certainly the cause) ---",
		"is not a valid tool name",
		"get_mcp_server_stderr still shows why",
	)
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after a failed reconnect", status, "failed", "Last connect failed:")
	stderr := mustText(t, h, "get_mcp_server_stderr", nil)
	wantContains(t, "stderr after a failed reconnect", stderr, "is not a valid tool name")

	writeFile(t, toolsFile, "extra_two\n")
	text = mustText(t, h, "reconnect_to_mcp", nil)
	wantLines(t, "reconnect after the fix", text, "  Tools: +1 added (extra_two), -1 removed (extra_one)")
}

// A call in flight when the agent reconnects fails with a message saying
// a reconnect interrupted it (3.0.0 gave a generic connection error).
func TestReconnectInterruptsCall(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	done := make(chan string, 1)
	go func() {
		res, err := h.c.CallTool(t.Context(), callRequest("call_mcp_primitive", tool("slow", map[string]any{"seconds": 5})))
		if err != nil {
			done <- "protocol error: " + err.Error()
			return
		}
		done <- fmt.Sprintf("isError=%v %s", res.IsError, joinText(res))
	}()
	ok := eventually(3*time.Second, func() bool {
		return strings.Contains(mustText(t, h, "mcp_server_status", nil), "Calls in flight: 1")
	})
	if !ok {
		t.Fatal("the slow call never showed as in flight")
	}
	mustText(t, h, "reconnect_to_mcp", nil)
	select {
	case got := <-done:
		wantContains(t, "the interrupted call", got, "isError=true", "A reconnect interrupted this call")
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupted call never returned")
	}
}

// A server that never answers initialize is given up on after
// connect_timeout_ms, torn down, and diagnosed. The budget leaves the
// server time to start and say why it waits even on a loaded machine (two
// process starts: run-mcp demo-server runs run-mcp-demo): the line is
// what the diagnosis must show.
func TestHandshakeTimeout(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs("--silent-handshake"), "connect_timeout_ms": 3000})
	wantContains(t, "handshake timeout", text,
		"did not complete the MCP handshake within 3.0s",
		"never answered initialize",
		"demo-server: waiting for a database that never comes",
	)
	m := regexp.MustCompile(`Command: .*`).FindString(text)
	if m == "" {
		t.Errorf("no command line in:\n%s", text)
	}
}

// A server that exits by itself is reported as such, and the notification
// log says it is not running (3.0.0 answered as if it were alive).
func TestServerExitsByItself(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "", "--exit-after-ms", "200")
	var status string
	ok := eventually(5*time.Second, func() bool {
		status = mustText(t, h, "mcp_server_status", nil)
		return strings.Contains(status, "Connection default: dead")
	})
	if !ok {
		t.Fatalf("status never said dead:\n%s", status)
	}
	wantContains(t, "status", status, "The server exited with code 0 (it chose to stop).", "exiting after 200ms as asked")
	notes := mustText(t, h, "get_server_notifications", nil)
	wantContains(t, "notifications of a dead server", notes, "is not running")
}

// Roots given to connect answer the server's roots/list, persist across a
// reconnect, and are counted on the forwarding line.
func TestRoots(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(),
		"roots": []any{map[string]any{"uri": "file:///tmp/a", "name": "a"}, map[string]any{"uri": "file:///tmp/b"}}})
	wantContains(t, "connect reply", reply, "roots answered by run-mcp (2 configured)")
	if got := mustText(t, h, "call_mcp_primitive", tool("list_roots", nil)); got != "file:///tmp/a\nfile:///tmp/b" {
		t.Errorf("list_roots: got %q", got)
	}
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantContains(t, "reconnect reply", reply, "roots answered by run-mcp (2 configured)")
	if got := mustText(t, h, "call_mcp_primitive", tool("list_roots", nil)); got != "file:///tmp/a\nfile:///tmp/b" {
		t.Errorf("list_roots after reconnect: got %q", got)
	}
}

// env reaches the server and is kept across reconnects; the shell's own
// environment does not leak in.
func TestEnv(t *testing.T) {
	t.Setenv("RUN_MCP_AGENT_TEST_SECRET", "leaked")
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "env": map[string]any{"API_KEY": "sk-123"}})
	if got := mustText(t, h, "call_mcp_primitive", tool("env", map[string]any{"name": "API_KEY"})); got != `API_KEY is set: "sk-123"` {
		t.Errorf("env API_KEY: got %q", got)
	}
	if got := mustText(t, h, "call_mcp_primitive", tool("env", map[string]any{"name": "RUN_MCP_AGENT_TEST_SECRET"})); got != "RUN_MCP_AGENT_TEST_SECRET is not set" {
		t.Errorf("run-mcp's own environment leaked into the target: %q", got)
	}
	mustText(t, h, "reconnect_to_mcp", nil)
	if got := mustText(t, h, "call_mcp_primitive", tool("env", map[string]any{"name": "API_KEY"})); got != `API_KEY is set: "sk-123"` {
		t.Errorf("env API_KEY after reconnect: got %q", got)
	}
}

// auto_connect spawns the server for the call; disconnect_after stops it.
func TestAutoConnectAndDisconnectAfter(t *testing.T) {
	t.Parallel()
	h := start(t)
	args := tool("echo", map[string]any{"message": "auto"}, "auto_connect", map[string]any{"command": bin, "args": demoArgs()}, "disconnect_after", true)
	if got := mustText(t, h, "call_mcp_primitive", args); got != "echo: auto" {
		t.Errorf("auto_connect echo: got %q", got)
	}
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after disconnect_after", status, "Connection default: disconnected")
	// auto_connect again brings it back.
	if got := mustText(t, h, "call_mcp_primitive", args); got != "echo: auto" {
		t.Errorf("second auto_connect echo: got %q", got)
	}
}

// Audio is saved like images.
func TestAudioSaved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, "-o", dir)
	connectDemo(t, h, "")
	text := mustText(t, h, "call_mcp_primitive", tool("audio", nil))
	if !regexp.MustCompile(`^\[Audio saved to ` + regexp.QuoteMeta(dir) + `/audio_[^ ]+\.wav \(\d+KB\)\]$`).MatchString(text) {
		t.Errorf("audio: got %q", text)
	}
}

// Noise written mid-session is reported by status.
func TestNoiseMidSession(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	mustText(t, h, "call_mcp_primitive", tool("noise", nil))
	var status string
	ok := eventually(3*time.Second, func() bool {
		status = mustText(t, h, "mcp_server_status", nil)
		return strings.Contains(status, "this line is not JSON-RPC")
	})
	if !ok {
		t.Errorf("status does not report the stdout noise:\n%s", status)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// A burst of notifications from the target is forwarded at most 20 per
// relay window; the rest are summarised with a pointer, and all of them stay
// readable with get_server_notifications.
func TestNotificationBurstIsBatched(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "log_level": "debug"})
	mustText(t, h, "call_mcp_primitive", tool("log", map[string]any{"message": "burst", "count": 60}))
	var forwarded int
	summarised := eventually(5*time.Second, func() bool {
		forwarded = 0
		summary := false
		for _, n := range h.notifications() {
			data := fmt.Sprint(n.Params.AdditionalFields["data"])
			if strings.HasPrefix(data, "burst #") {
				forwarded++
			}
			if strings.Contains(data, "more notification(s) from default not forwarded") {
				summary = true
			}
		}
		return summary
	})
	if !summarised || forwarded > 20 || forwarded == 0 {
		t.Fatalf("forwarded %d of the burst (want 1..20) and a summary (%v)", forwarded, summarised)
	}
	text := mustText(t, h, "get_server_notifications", map[string]any{"method": "notifications/message", "count": 100})
	if !strings.Contains(text, "burst #60") {
		t.Errorf("the whole burst must stay readable:\n%.400s", text)
	}
}
