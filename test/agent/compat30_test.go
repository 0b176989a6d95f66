package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/test/targets"
)

// The agent server's replies in the words of the TypeScript run-mcp 3.0.0,
// where the specification is silent: agents' prompts and users' scripts
// were written against them (reference: "Outputs of 3.0.0 that scripts and
// agents rely on" → "Agent server (text replies)").

// everythingConnect is connect_to_mcp's arguments for server-everything.
func everythingConnect(t *testing.T, extra map[string]any) map[string]any {
	t.Helper()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	args := make([]any, 0, len(cmd)-1)
	for _, a := range cmd[1:] {
		args = append(args, a)
	}
	a := map[string]any{"command": cmd[0], "args": args}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

var allKinds = []any{"tools", "resources", "resource_templates", "prompts"}

// wantInOrder checks that each part appears in text after the one before.
func wantInOrder(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(text[at:], p)
		if i < 0 {
			t.Errorf("%s lacks %q after position %d (in order %q); got:\n%s", what, p, at, parts, text)
			return
		}
		at += i + 1 // parts may share a newline
	}
}

var connectedRE = regexp.MustCompile(`(?m)^Connected to MCP server \(PID: [1-9]\d*\)$`)

// connect: the PID line, Command, Protocol with its era, Capabilities,
// "Tools available: N", the include sections and the server instructions last.
func TestCompat30Connect(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "include": allKinds, "summary": true})
	if !connectedRE.MatchString(reply) {
		t.Errorf("connect reply has no line `Connected to MCP server (PID: N)`:\n%s", reply)
	}
	wantInOrder(t, "connect reply", reply,
		"Connected to MCP server (PID: ", "\nCommand: "+bin+" demo-server\n", "\nProtocol: 2025-11-25 (legacy era",
		"\nCapabilities: tools, resources (subscribe), prompts, logging\n", "\nTools available: 17\n",
		"\n--- Tools ---\n- add: ", "\n--- Resources ---\n- demo://counter: ", "\n--- Resource Templates ---\n- demo://echo/{text}: ",
		"\n--- Prompts ---\n- greet: ", "\nServer instructions:\nA demo MCP server bundled with run-mcp.")

	// Without summary each section is the JSON the server sent.
	h2 := start(t)
	full := mustText(t, h2, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "include": []any{"tools"}})
	var tools []map[string]any
	if err := json.Unmarshal([]byte(sectionBody(t, full, "Tools")), &tools); err != nil || len(tools) != 17 {
		t.Errorf("--- Tools --- is not the JSON array of the 17 tools (%v):\n%s", err, full)
	}

	// A connect while the name is live: an error containing "Already connected".
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()})
	wantContains(t, "second connect", text, "ALREADY_CONNECTED: ", "Already connected", "reconnect_to_mcp", "disconnect_from_mcp")

	// A connect in place of an earlier record of the same name prints no
	// diff, as in 3.0; asked to list (include), it says what changed.
	mustText(t, h, "disconnect_from_mcp", nil)
	reply = mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()})
	wantNotContains(t, "second connect without include", reply, "Changes since last connection")
	mustText(t, h, "disconnect_from_mcp", nil)
	reply = mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "include": []any{"tools"}, "summary": true})
	wantInOrder(t, "connect after disconnect with include", reply, "Connected to MCP server (PID: ", "\nChanges since last connection: none\n", "\n--- Tools ---\n")
}

// sectionBody is the text between "--- <title> ---" and the next blank line.
func sectionBody(t *testing.T, reply, title string) string {
	t.Helper()
	head := "\n--- " + title + " ---\n"
	i := strings.Index(reply, head)
	if i < 0 {
		t.Fatalf("no %q section in:\n%s", title, reply)
	}
	body := reply[i+len(head):]
	if j := strings.Index(body, "\n\n"); j >= 0 {
		body = body[:j]
	}
	return body
}

// The same shapes against the official reference server.
func TestCompat30ConnectEverything(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := mustText(t, h, "connect_to_mcp", everythingConnect(t, map[string]any{"include": allKinds, "summary": true}))
	if !connectedRE.MatchString(reply) {
		t.Errorf("connect reply has no line `Connected to MCP server (PID: N)`:\n%s", reply)
	}
	m := regexp.MustCompile(`(?m)^Tools available: (\d+)$`).FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("no `Tools available: N` line:\n%s", reply)
	}
	if listed := strings.Count(sectionBody(t, reply, "Tools"), "\n- ") + 1; fmt.Sprint(listed) != m[1] {
		t.Errorf("Tools available: %s, but --- Tools --- lists %d", m[1], listed)
	}
	wantInOrder(t, "connect reply", reply, "\nProtocol: 2025-11-25 (legacy era", "\nCapabilities: tools, ",
		"\n--- Tools ---\n- echo: ", "\n--- Resources ---\n- demo://resource/static/document/", "\n--- Resource Templates ---\n",
		"\n--- Prompts ---\n- simple-prompt: ", "\nServer instructions:\n")

	// list_mcp_primitives: the same sections; a filter that matches nothing.
	list := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"prompts"}, "summary": true})
	wantContains(t, "list prompts", list, "\n--- Prompts ---\n- simple-prompt: A prompt with no arguments")
	wantNotContains(t, "list prompts", list, "--- Tools ---")
	text := mustFail(t, h, "list_mcp_primitives", map[string]any{"name": "no-such-thing"})
	wantContains(t, "list with a name that matches nothing", text, `Tool "no-such-thing" not found`, "Available: echo, ")

	// Call errors.
	text = mustFail(t, h, "call_mcp_primitive", tool("ecoh", map[string]any{"message": "x"}))
	wantContains(t, "unknown tool", text, `Tool "ecoh" not found`, `Did you mean "echo"?`, "Available tools: echo, ")
	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"msg": "x"}))
	wantContains(t, "missing argument", text, `Tool "echo" requires: message. Received: {"msg":"x"}`)

	// Prompts and resources.
	text = mustText(t, h, "call_mcp_primitive", map[string]any{"type": "prompt", "name": "simple-prompt"})
	if !strings.HasPrefix(text, "[USER MESSAGE] ") {
		t.Errorf("prompt messages are not prefixed [USER MESSAGE]:\n%s", text)
	}
	res := h.call(t, "call_mcp_primitive", map[string]any{"type": "resource", "name": "demo://resource/static/document/architecture.md"})
	if res.IsError || len(res.Content) != 1 || !isTextPrefix(res.Content[0], "# Everything Server") {
		t.Errorf("the resource is not one text item: %+v", res.Content)
	}

	// include_metadata with streamed progress.
	res = h.call(t, "call_mcp_primitive", tool("trigger-long-running-operation", map[string]any{"duration": 1, "steps": 2}, "include_metadata", true))
	lines, meta := metadata(t, res)
	if !regexp.MustCompile(`^Progress: 2 update\(s\) streamed; last 2/2 at \d+\.\ds\.$`).MatchString(findPrefix(lines, "Progress:")) {
		t.Errorf("the lines item has no `Progress: 2 update(s) streamed; …` line: %q", lines)
	}
	if p, _ := meta["progress"].(map[string]any); p == nil || len(p["events"].([]any)) != 2 {
		t.Errorf("metadata progress = %v, want 2 events", meta["progress"])
	}
	if len(res.Content) != 2 || !isTextPrefix(res.Content[1], "Long running operation completed.") {
		t.Errorf("the result is not content[1], after the one metadata item: %+v", res.Content)
	}

	// Disconnect.
	text = mustText(t, h, "disconnect_from_mcp", nil)
	if !disconnectedRE.MatchString(text) {
		t.Errorf("disconnect reply %q, want `Disconnected from MCP server (was PID: N, uptime: X.Xs).`", text)
	}
}

func isTextPrefix(c mcp.Content, prefix string) bool {
	tc, ok := mcp.AsTextContent(c)
	return ok && strings.HasPrefix(tc.Text, prefix)
}

var disconnectedRE = regexp.MustCompile(`^Disconnected from MCP server \(was PID: [1-9]\d*, uptime: \d+\.\ds\)\.`)

// status: "Connected: true" and "PID: N" while live; "No target server
// connected" with none.
func TestCompat30Status(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustText(t, h, "mcp_server_status", nil)
	if !strings.HasPrefix(text, "No target server connected") {
		t.Errorf("status with no connection: %q", text)
	}
	wantContains(t, "status with no connection", text, "connect_to_mcp")

	pid := pidOf(t, connectDemo(t, h, ""))
	text = mustText(t, h, "mcp_server_status", nil)
	if !hasLine(text, "Connected: true") {
		t.Errorf("live status lacks the line `Connected: true`:\n%s", text)
	}
	wantContains(t, "live status", text, fmt.Sprintf("\nPID: %d", pid))

	mustText(t, h, "disconnect_from_mcp", nil)
	if text = mustText(t, h, "mcp_server_status", nil); !hasLine(text, "Connected: false") {
		t.Errorf("status after disconnect lacks the line `Connected: false`:\n%s", text)
	}
}

// Tools that need a connection, with none: "Not connected" for a call, "No
// target server connected" for the others, after the stable code, each
// with the way to connect.
func TestCompat30NotConnected(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "x"}))
	if !strings.HasPrefix(text, "NO_CONNECTION: Not connected") {
		t.Errorf("call with no connection: %q", text)
	}
	wantContains(t, "call with no connection", text, "connect_to_mcp", "auto_connect")
	for _, name := range []string{"list_mcp_primitives", "disconnect_from_mcp", "get_server_notifications", "reconnect_to_mcp"} {
		text := mustFail(t, h, name, nil)
		if !strings.HasPrefix(text, "NO_CONNECTION: No target server connected") {
			t.Errorf("%s with no connection: %q", name, text)
		}
		wantContains(t, name+" with no connection", text, "connect_to_mcp")
	}
}

// list_mcp_primitives: the same sections; summary gives names and
// descriptions only; a name filter that matches nothing says so.
func TestCompat30List(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustText(t, h, "list_mcp_primitives", nil)
	wantInOrder(t, "list", text, "\n--- Tools ---\n[", "\n--- Resources ---\n[", "\n--- Resource Templates ---\n[", "\n--- Prompts ---\n[")
	text = mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "summary": true})
	body := sectionBody(t, text, "Tools")
	if strings.Contains(body, "{") || !strings.Contains(body, "- echo: Echoes the message back.") {
		t.Errorf("summary is not names and descriptions:\n%s", text)
	}
	text = mustFail(t, h, "list_mcp_primitives", map[string]any{"name": "zzz"})
	wantContains(t, "list name=zzz", text, `Tool "zzz" not found`, "Available: add, add_tool,", "demo://counter", "greet")
}

// Call errors, checked against the cached list before anything is sent.
func TestCompat30CallErrors(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustFail(t, h, "call_mcp_primitive", tool("ecko", map[string]any{"message": "x"}))
	wantContains(t, "close unknown tool", text, `Tool "ecko" not found`, `Did you mean "echo"?`, "Available tools: add, add_tool, ")
	text = mustFail(t, h, "call_mcp_primitive", tool("qqqqqqqq", nil))
	wantContains(t, "far unknown tool", text, `Tool "qqqqqqqq" not found`, "Available tools: add, ")
	wantNotContains(t, "far unknown tool", text, "Did you mean")
	text = mustFail(t, h, "call_mcp_primitive", tool("echo", map[string]any{}))
	wantContains(t, "missing argument", text, `Tool "echo" requires: message. Received: {}`)
}

// include_metadata: one metadata item, "--- metadata ---", its JSON and,
// after a blank line, the lines for a person; then the result's items
// unchanged, the first of them content[1] as in 3.0.
func TestCompat30Metadata(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true))
	if res.IsError {
		t.Fatalf("ask_name: %s", joinText(res))
	}
	lines, meta := metadata(t, res)
	for _, k := range []string{"latency_ms", "server_ms", "input_wait_ms", "content_items", "is_error", "truncated",
		"images_saved", "audio_saved", "results_saved", "original_size_bytes", "input_requests", "progress"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("metadata JSON lacks %q: %v", k, meta)
		}
	}
	ir, _ := meta["input_requests"].(map[string]any)
	for k, want := range map[string]float64{"elicitation": 1, "sampling": 0, "roots": 0, "total": 1} {
		if got, ok := ir[k].(float64); !ok || got != want {
			t.Errorf("input_requests.%s = %v, want %v", k, ir[k], want)
		}
	}
	if !strings.HasPrefix(lines[0], `Input round 1: elicitation "What should the demo call you?": accepted`) {
		t.Errorf("the metadata's lines do not start with the input round: %q", lines)
	}
	if findPrefix(lines, "Progress: none — a progress token was offered and the server sent no notifications/progress") == "" {
		t.Errorf("the metadata's lines lack the specification's Progress line: %q", lines)
	}
	if n, _ := meta["content_items"].(float64); int(n) != len(res.Content)-1 {
		t.Errorf("content_items = %v, but %d result item(s) follow the metadata", n, len(res.Content)-1)
	}
	plain := h.call(t, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}))
	withMeta := h.call(t, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "include_metadata", true))
	if len(withMeta.Content) != len(plain.Content)+1 || !isText(withMeta.Content[1], joinText(plain)) {
		t.Errorf("the result items do not follow unchanged: %+v vs %+v", withMeta.Content, plain.Content)
	}
}

// Truncation and read_result.
func TestCompat30Truncation(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustText(t, h, "call_mcp_primitive", tool("big_text", map[string]any{"chars": 200}, "max_text_length", 10))
	wantContains(t, "truncated reply", text, "[truncated at 10 of 200 chars", "result id: r1", `read_result id="r1" offset=10`)
	page := mustText(t, h, "read_result", map[string]any{"id": "r1", "offset": 50, "length": 100})
	if first := firstLineOf(page); first != "[result r1: chars 50–150 of 200 — more available (continue at offset 150)]" {
		t.Errorf("read_result header %q", first)
	}
	page = mustText(t, h, "read_result", map[string]any{"id": "r1", "offset": 150})
	if first := firstLineOf(page); first != "[result r1: chars 150–200 of 200 — end of result]" {
		t.Errorf("read_result last page header %q", first)
	}
	text = mustFail(t, h, "read_result", map[string]any{"id": "r999"})
	wantContains(t, "unknown id", text, `Unknown result id "r999"`, "r1")
}

// reconnect and disconnect.
func TestCompat30ReconnectDisconnect(t *testing.T) {
	t.Parallel()
	h := start(t)
	toolsFile := tempFile(t, "tools.txt", "old_one\nkept: First.\n")
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs("--tools-file", toolsFile)})
	writeFile(t, toolsFile, "kept: Second.\nnew_one\n")
	reply := mustText(t, h, "reconnect_to_mcp", nil)
	if !regexp.MustCompile(`^Reconnected to MCP server \(PID: [1-9]\d*\)\nChanges since last connection:\n`).MatchString(reply) {
		t.Errorf("reconnect reply does not start with the PID line and the changes header:\n%s", reply)
	}
	wantLines(t, "reconnect reply", reply, "  Tools: +1 added (new_one), ~1 modified (kept), -1 removed (old_one)", "  Resources: unchanged")
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantLines(t, "reconnect without an edit", reply, "Changes since last connection: none")
	text := mustText(t, h, "disconnect_from_mcp", nil)
	if !disconnectedRE.MatchString(text) {
		t.Errorf("disconnect reply %q, want `Disconnected from MCP server (was PID: N, uptime: X.Xs).`", text)
	}
}

// get_server_notifications with nothing to show.
func TestCompat30NoNotifications(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	text := mustText(t, h, "get_server_notifications", nil)
	if !strings.HasPrefix(text, "No notifications") {
		t.Errorf("an empty log: %q", text)
	}
	wantContains(t, "an empty log", text, "trigger", "get_server_notifications again")
	text = mustText(t, h, "get_server_notifications", map[string]any{"method": "nothing/like/this"})
	if !strings.HasPrefix(text, "No notifications") {
		t.Errorf("a filter matching nothing: %q", text)
	}
	wantContains(t, "a filter matching nothing", text, "Leave out method")
}

// subscribe and status on a 2026-07-28 connection.
func TestCompat30ModernSubscribe(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "protocol": "2026-07-28"})
	text := mustText(t, h, "subscribe_to_resource", map[string]any{"uri": "demo://counter"})
	wantContains(t, "modern subscribe", text, "the server honored the URI", "get_server_notifications method=resources/updated")
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "modern status", status, "\nlist_changed stream: requested toolsListChanged", "server honored toolsListChanged",
		"\nResource subscriptions: demo://counter")
}

// The target's stderr reaches the host as logging messages at level info
// from logger target-stderr, the connection named in _meta.
func TestCompat30StderrRelay(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line string
		connect    func(*testing.T) map[string]any
	}{
		{"demo", "flood line 1", func(*testing.T) map[string]any {
			return map[string]any{"command": bin, "args": demoArgs("--stderr-flood", "3"), "name": "relayed"}
		}},
		{"server-everything", "Starting default (STDIO) server...", func(t *testing.T) map[string]any {
			return everythingConnect(t, map[string]any{"name": "relayed"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := tc.connect(t)
			h := start(t)
			mustText(t, h, "connect_to_mcp", args)
			var got mcp.JSONRPCNotification
			ok := eventually(10*time.Second, func() bool {
				for _, n := range h.notifications() {
					data, _ := n.Params.AdditionalFields["data"].(string)
					if n.Method == "notifications/message" && strings.Contains(data, tc.line) {
						got = n
						return true
					}
				}
				return false
			})
			if !ok {
				t.Fatalf("the stderr line %q never reached the host", tc.line)
			}
			f := got.Params.AdditionalFields
			if f["level"] != "info" || f["logger"] != "target-stderr" || got.Params.Meta["run-mcp/connection"] != "relayed" {
				t.Errorf("relayed stderr: level %v, logger %v, _meta %v; want info, target-stderr, run-mcp/connection=relayed", f["level"], f["logger"], got.Params.Meta)
			}
		})
	}
}

// validate_mcp_server, quick and deep.
func TestCompat30Validate(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs()})
	wantInOrder(t, "quick validate", text, "Validation Result: SUCCESS\n", "run-mcp-demo", "\nTools Count: 17\n")
	text, _ = callText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs("--crash-at-start", "no config")})
	if !strings.HasPrefix(text, "Validation Result: FAILED\n") {
		t.Errorf("quick validate of a dead server:\n%s", text)
	}
	text = mustText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs(), "deep": true})
	wantInOrder(t, "deep validate", text, "Validation Result: PASS\n", "\nChecks Summary: ", "\n[PASS] handshake_connection: ")

	ev := everythingConnect(t, nil)
	text = mustText(t, h, "validate_mcp_server", ev)
	wantInOrder(t, "quick validate of server-everything", text, "Validation Result: SUCCESS\n", "mcp-servers/everything", "\nTools Count: ")
	ev["deep"] = true
	text = mustText(t, h, "validate_mcp_server", ev)
	if !regexp.MustCompile(`^Validation Result: (PASS|WARN|FAIL)\n`).MatchString(text) {
		t.Errorf("deep validate of server-everything:\n%s", text)
	}
	wantContains(t, "deep validate of server-everything", text, "\nChecks Summary: ", "\n[PASS] handshake_connection: ")
}

// Prompt messages are prefixed with their role; a resource is text items.
func TestCompat30PromptsAndResources(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", map[string]any{"type": "prompt", "name": "greet", "arguments": map[string]any{"name": "Bob"}})
	if res.IsError || !isText(res.Content[len(res.Content)-1], "[USER MESSAGE] Say hello to Bob.") {
		t.Errorf("prompt: %+v", res.Content)
	}
	res = h.call(t, "call_mcp_primitive", map[string]any{"type": "resource", "name": "demo://counter"})
	if res.IsError || len(res.Content) != 1 || !isText(res.Content[0], "0") {
		t.Errorf("resource: %+v", res.Content)
	}
}
