package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The loop of the specification: connect with a listing, call, edit the
// server, reconnect and read the diff, then read only the new stderr.
func TestDevLoop(t *testing.T) {
	t.Parallel()
	h := start(t)
	toolsFile := tempFile(t, "tools.txt", "extra_one\n")

	reply := mustText(t, h, "connect_to_mcp", map[string]any{
		"command": bin, "args": demoArgs("--tools-file", toolsFile),
		"include": []any{"tools"}, "summary": true,
	})
	wantContains(t, "connect reply", reply,
		"Connected to MCP server (PID: ",
		"Protocol: 2025-11-25 (legacy era)",
		"Server: run-mcp-demo 1.0.0",
		"\n- extra_one: An extra tool from the tools file.",
		"\n- echo: Echoes the message back.",
	)
	// The test host declared form elicitation (a bare elicitation
	// capability, which means forms) and sampling; roots are run-mcp's own.
	if want := "Client input forwarded to your host: elicitation forms yes, URL mode no, sampling yes; roots answered by run-mcp (0 configured)"; !hasLine(reply, want) {
		t.Errorf("connect reply lacks the line %q:\n%s", want, reply)
	}
	if !regexp.MustCompile(`(?m)^Connected to MCP server \(PID: [1-9][0-9]*\)$`).MatchString(reply) {
		t.Errorf("connect reply has no PID line:\n%s", reply)
	}

	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"})); got != "echo: hi" {
		t.Errorf("echo: got %q, want %q", got, "echo: hi")
	}
	if got := mustText(t, h, "call_mcp_primitive", tool("extra_one", map[string]any{"message": "x"})); got != "extra_one: x" {
		t.Errorf("extra_one: got %q", got)
	}

	// Edit: add search_images, drop extra_one.
	writeFile(t, toolsFile, "search_images: Finds images.\n")
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantContains(t, "reconnect reply", reply, "Reconnected to MCP server (PID: ", "Changes since last connection:")
	wantLines(t, "reconnect reply", reply,
		"  Tools: +1 added (search_images), -1 removed (extra_one)",
		"  Resources: unchanged",
		"  Prompts: unchanged",
	)
	if got := mustText(t, h, "call_mcp_primitive", tool("search_images", map[string]any{"message": "cats"})); got != "search_images: cats" {
		t.Errorf("search_images after reconnect: got %q", got)
	}

	// Edit: change a description only.
	writeFile(t, toolsFile, "search_images: Finds images by keyword.\n")
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantLines(t, "reconnect reply (description edit)", reply, "  Tools: ~1 modified (search_images)")

	// Edit: only remove. 3.0.0 printed "none" here.
	writeFile(t, toolsFile, "")
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantLines(t, "reconnect reply (removal only)", reply, "  Tools: -1 removed (search_images)")
	wantNotContains(t, "reconnect reply (removal only)", reply, "Changes since last connection: none")

	// No edit at all: none.
	reply = mustText(t, h, "reconnect_to_mcp", nil)
	wantLines(t, "reconnect reply (no edit)", reply, "Changes since last connection: none")

	// Stderr with a cursor.
	out := mustText(t, h, "get_mcp_server_stderr", nil)
	since := nextSince(t, out)
	if got := mustText(t, h, "call_mcp_primitive", tool("stderr", map[string]any{"lines": 3})); got != "wrote 3 lines" {
		t.Errorf("stderr tool: got %q", got)
	}
	var lines []string
	var next int
	ok := eventually(5*time.Second, func() bool {
		out = mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": since})
		lines, next = splitStderr(t, out)
		return len(lines) >= 3
	})
	if !ok {
		t.Fatalf("get_mcp_server_stderr since=%d never showed the 3 new lines:\n%s", since, out)
	}
	if len(lines) != 3 {
		t.Fatalf("since=%d: want exactly 3 lines, got %d:\n%s", since, len(lines), out)
	}
	stamp := regexp.MustCompile(`^\d{2}:\d{2}:\d{2}\.\d{3} #(\d+)  (.*)$`)
	for i, l := range lines {
		m := stamp.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("line %q is not stamped HH:MM:SS.mmm #K", l)
			continue
		}
		if k, _ := strconv.Atoi(m[1]); k != since+i+1 {
			t.Errorf("line %q: position %d, want %d", l, k, since+i+1)
		}
		if want := fmt.Sprintf("stderr line %d", i+1); m[2] != want {
			t.Errorf("line %q: text %q, want %q", l, m[2], want)
		}
	}
	if next != since+3 {
		t.Errorf("next: since=%d, want %d", next, since+3)
	}

	bare := mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": since, "timestamps": false})
	if want := fmt.Sprintf("stderr line 1\nstderr line 2\nstderr line 3\nnext: since=%d", since+3); bare != want {
		t.Errorf("timestamps=false: got\n%s\nwant\n%s", bare, want)
	}

	// Nothing new since the last cursor.
	empty := mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": since + 3})
	if want := fmt.Sprintf("(no new stderr lines)\nnext: since=%d", since+3); empty != want {
		t.Errorf("since=%d (nothing new): got %q, want %q", since+3, empty, want)
	}
}

// wantLines checks that each line appears in text as a whole line.
func wantLines(t *testing.T, what, text string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !hasLine(text, l) {
			t.Errorf("%s lacks the line %q; got:\n%s", what, l, text)
		}
	}
}

var nextRE = regexp.MustCompile(`(?:^|\n)next: since=(\d+)$`)

// nextSince reads the cursor an stderr reply ends with.
func nextSince(t *testing.T, out string) int {
	t.Helper()
	m := nextRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("stderr reply does not end with next: since=N:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// splitStderr returns the stderr lines of a reply and its cursor.
func splitStderr(t *testing.T, out string) ([]string, int) {
	t.Helper()
	next := nextSince(t, out)
	body := strings.TrimSuffix(nextRE.ReplaceAllString(out, ""), "\n")
	if body == "" || body == "(no new stderr lines)" {
		return nil, next
	}
	return strings.Split(body, "\n"), next
}
