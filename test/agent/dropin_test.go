package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/test/targets"
)

// A drop-in for what was written against 3.0, where the specification is
// silent, and the agent server's small truths (issue 22).

// include_metadata: one metadata item, then the result's own items, the
// first of them content[1] as in 3.0. The item is "--- metadata ---", the
// JSON (a script reads it up to the first blank line) and then the lines
// for a person; input_requests keeps 3.0's flat counts beside the rounds.
func TestDropInMetadataIsOneItem(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "roots": []any{map[string]any{"uri": "file:///tmp/w"}}})
	for _, tc := range []struct {
		tool, kind, line string
		args             map[string]any
	}{
		{"ask_name", "elicitation", `Input round 1: elicitation "What should the demo call you?": accepted`, nil},
		{"ask_llm", "sampling", "Input round 1: sampling", map[string]any{"prompt": "hi"}},
		{"list_roots", "roots", "Input round 1: roots", nil},
	} {
		plain := h.call(t, "call_mcp_primitive", tool(tc.tool, tc.args))
		res := h.call(t, "call_mcp_primitive", tool(tc.tool, tc.args, "include_metadata", true))
		if res.IsError || plain.IsError {
			t.Fatalf("%s: %s", tc.tool, joinText(res))
		}
		if len(res.Content) != len(plain.Content)+1 || !isText(res.Content[1], firstText(t, plain)) {
			t.Errorf("%s: the result's items do not follow the one metadata item (content[1] is the result): %+v", tc.tool, res.Content)
		}
		lines, meta := metadata(t, res)
		if findPrefix(lines, tc.line) == "" || findPrefix(lines, "Progress: ") == "" {
			t.Errorf("%s: the metadata item's lines lack %q or the Progress line: %q", tc.tool, tc.line, lines)
		}
		ir, _ := meta["input_requests"].(map[string]any)
		for _, kind := range []string{"elicitation", "sampling", "roots"} {
			want := 0.0
			if kind == tc.kind {
				want = 1
			}
			if got, ok := ir[kind].(float64); !ok || got != want {
				t.Errorf("%s: input_requests.%s = %v, want %v (3.0's flat count)", tc.tool, kind, ir[kind], want)
			}
		}
		rounds, _ := ir["rounds"].([]any)
		if total, _ := ir["total"].(float64); total != 1 || len(rounds) != 1 {
			t.Errorf("%s: input_requests.total = %v with %d round(s), want 1 and 1", tc.tool, ir["total"], len(rounds))
		}
	}
}

func firstText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("no content: %+v", res)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("first item is not text: %+v", res.Content[0])
	}
	return tc.Text
}

// get_mcp_server_stderr without since shows what the current process
// wrote, as 3.0 did after a reconnect (only the new server's lines);
// since=N keeps counting across reconnects.
func TestDropInStderrIsTheCurrentProcess(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs("--stderr-flood", "2")})
	first, _ := stderrSince(t, h, "", 0, 2)
	wantContains(t, "first process", strings.Join(first, "\n"), "flood line 1", "flood line 2")
	mustText(t, h, "call_mcp_primitive", tool("stderr", map[string]any{"lines": 1}))
	before := nextSince(t, mustText(t, h, "get_mcp_server_stderr", nil))
	mustText(t, h, "reconnect_to_mcp", nil)
	after, _ := stderrSince(t, h, "", before, 3) // the marker and the new process's two lines
	out := mustText(t, h, "get_mcp_server_stderr", map[string]any{"timestamps": false})
	body, _, _ := strings.Cut(out, "\n(lines 1–")
	if got := strings.Split(strings.TrimSpace(body), "\n"); len(got) != 2 || got[0] != "flood line 1" || got[1] != "flood line 2" {
		t.Errorf("without since: %q, want only the new process's two lines", got)
	}
	wantContains(t, "without since", out, fmt.Sprintf("(lines 1–%d are from earlier processes of this connection: since=0 shows them too)", before+1),
		fmt.Sprintf("next: since=%d", before+3))
	if !strings.Contains(strings.Join(after, "\n"), "process") || len(after) != 3 {
		t.Errorf("since=%d after the reconnect: %q, want the marker and the new process's lines", before, after)
	}
	all := mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": 0, "timestamps": false})
	if strings.Count(all, "flood line 1") != 2 {
		t.Errorf("since=0 does not show both processes:\n%s", all)
	}
}

// list_mcp_primitives with a cursor keeps the --- Tools --- heading.
func TestDropInListPageHasItsHeading(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": schemasServer})
	page := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "cursor": "page2"})
	if !strings.HasPrefix(page, "--- Tools ---\n{") {
		t.Errorf("a page of tools does not open with 3.0's heading:\n%s", page)
	}
}

// A server of 2026-07-28 alone refusing the legacy handshake: the reply
// says "Unsupported protocol version" once and what to pass once.
func TestDropInModernOnlyRefusal(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, args := range []map[string]any{
		{"command": schemasServer, "args": []any{"-modern-only"}},
	} {
		text := mustFail(t, h, "connect_to_mcp", args)
		if n := strings.Count(text, "Unsupported protocol version"); n != 1 {
			t.Errorf("connect says Unsupported protocol version %d time(s), want once:\n%s", n, text)
		}
		if n := strings.Count(text, "--protocol auto"); n != 1 {
			t.Errorf("connect gives the --protocol auto hint %d time(s), want once:\n%s", n, text)
		}
		wantContains(t, "connect of a modern-only server", text, `protocol "auto"`)
	}
	text := mustFail(t, h, "call_mcp_primitive", tool("echo_raw", nil, "auto_connect", map[string]any{"command": schemasServer, "args": []any{"-modern-only"}}))
	if strings.Count(text, "Unsupported protocol version") != 1 || strings.Count(text, "--protocol auto") != 1 {
		t.Errorf("auto_connect of a modern-only server:\n%s", text)
	}
}

// get_mcp_server_stderr since=N does not resend the stdout-noise section
// the reply that handed out N showed; noise that came after it is shown,
// and only that.
func TestDropInStderrSinceDoesNotResendNoise(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "", "--stdout-noise", "debug: booting")
	first := mustText(t, h, "get_mcp_server_stderr", nil)
	wantContains(t, "first look", first, "--- stdout noise: 1 line(s)", "debug: booting")
	second := mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": nextSince(t, first)})
	wantNotContains(t, "second look", second, "--- stdout noise", "debug: booting")
	wantContains(t, "second look", second, "stdout noise: nothing new since your last look; 1 line(s)")
	mustText(t, h, "call_mcp_primitive", tool("noise", nil))
	var third string
	if !eventually(10*time.Second, func() bool {
		third = mustText(t, h, "get_mcp_server_stderr", map[string]any{"since": nextSince(t, second)})
		return strings.Contains(third, "--- stdout noise")
	}) {
		t.Fatalf("the new noise line never showed:\n%s", third)
	}
	wantNotContains(t, "third look", third, "debug: booting")
	wantContains(t, "third look", third, "--- stdout noise: 1 line(s)")
	// Without since, the whole section, as before.
	wantContains(t, "a look without since", mustText(t, h, "get_mcp_server_stderr", nil), "--- stdout noise: 2 line(s)", "debug: booting")
}

// Stored notifications are what the server sent: no _meta it never sent.
// (Forwarded ones carry run-mcp/connection in _meta; stored ones do not.)
func TestDropInStoredNotificationsAreAsSent(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs(), "log_level": "debug"})
	mustText(t, h, "call_mcp_primitive", tool("log", map[string]any{"level": "info", "message": "hello"}))
	mustText(t, h, "call_mcp_primitive", tool("add_tool", map[string]any{"name": "extra"}))
	mustText(t, h, "call_mcp_primitive", tool("slow", map[string]any{"steps": 1}))
	var text string
	if !eventually(10*time.Second, func() bool {
		text = mustText(t, h, "get_server_notifications", nil)
		return strings.Contains(text, "notifications/message") && strings.Contains(text, "notifications/tools/list_changed") &&
			strings.Contains(text, "notifications/progress")
	}) {
		t.Fatalf("the notifications never all arrived:\n%s", text)
	}
	wantNotContains(t, "stored notifications", text, "_meta", "run-mcp/connection")
}

// max-text bounds the text of a whole result, not each item: two items of
// 30,000 characters under the default 50,000 show 50,000 in all, and
// read_result goes on where the reply stops. An oversized
// structuredContent is spilled like text.
func TestDropInMaxTextBoundsTheWholeResult(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": schemasServer})
	args := map[string]any{"fill": strings.Repeat("f", 29_980), "pad": 30_000}
	res := h.call(t, "call_mcp_primitive", tool("echo_raw", args))
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("want the arguments' item whole and the pad item cut: %+v", res.Content)
	}
	argsText := firstText(t, res)
	cut, _ := mcp.AsTextContent(res.Content[1])
	m := regexp.MustCompile(`\[truncated at 50,000 of ([\d,]+) chars\. Full text saved to \S+ \(result id: (r\d+)\)\. Read more with read_result id="r\d+" offset=50000\.\]$`).FindStringSubmatch(cut.Text)
	if m == nil {
		t.Fatalf("the second item has no truncation note at 50,000 of the whole: %q", tail(cut.Text, 200))
	}
	if shown := len([]rune(argsText)) + 2 + len([]rune(strings.TrimRight(cut.Text[:strings.Index(cut.Text, "\n\n[truncated")], "\n"))); shown != 50_000 {
		t.Errorf("the reply shows %d characters of text, want 50,000", shown)
	}
	rest := mustText(t, h, "read_result", map[string]any{"id": m[2], "offset": 50_000})
	if !strings.HasSuffix(rest, strings.Repeat("x", 100)) || !strings.Contains(rest, "— end of result]") {
		t.Errorf("read_result from the note's offset: %q", firstLineOf(rest))
	}
	if res.StructuredContent == nil {
		t.Error("a structuredContent under the limit was dropped")
	}

	res = h.call(t, "call_mcp_primitive", tool("echo_raw", args, "max_text_length", 20_000))
	if res.StructuredContent != nil {
		t.Errorf("a structuredContent over max_text_length reached the agent whole")
	}
	last, _ := mcp.AsTextContent(res.Content[len(res.Content)-1])
	if !strings.HasPrefix(last.Text, "structuredContent (") || !strings.Contains(last.Text, "[truncated at 20,000 of ") {
		t.Errorf("the last item is not the structuredContent's head and note: %q", firstLineOf(last.Text))
	}
	if len(res.Content) != 2 {
		t.Errorf("under 20,000 the pad item should be left out (it is in the file): %d items", len(res.Content))
	}
}

// Files saved by base64 detection (data_…) are pruned after 7 days like
// the others when the agent server starts.
func TestDropInBase64FilesArePruned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	odd := oddServer(t)
	h := start(t, "-o", dir)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": odd})
	text := mustText(t, h, "call_mcp_primitive", tool("pdf_base64", nil))
	m := regexp.MustCompile(`saved to (\S+/data_\d+_\d+\.pdf) `).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the base64 PDF was not saved as data_….pdf: %q", text)
	}
	_ = h.close()
	old := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(m[1], old, old); err != nil {
		t.Fatal(err)
	}
	recent := filepath.Join(dir, "data_1700000000000_9.pdf")
	writeFile(t, recent, "%PDF")
	start(t, "-o", dir) // prunes as it starts, before it answers initialize
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("%s, 8 days old, was not pruned (%v)", m[1], err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent data_ file was pruned: %v", err)
	}
}

// validate labels the stderr of a failure with the specification's heading.
func TestDropInValidateStderrHeading(t *testing.T) {
	t.Parallel()
	h := start(t)
	text, _ := callText(t, h, "validate_mcp_server", map[string]any{"command": bin, "args": demoArgs("--crash-at-start", "no config")})
	wantInOrder(t, "validate of a dead server", text, "Validation Result: FAILED\n",
		"\n--- Target server stderr (this is almost certainly the cause) ---\n", "demo-server: fatal: no config")
}

// The metadata JSON a script reads is JSON: the item parses up to its
// first blank line, and 3.0's keys are there.
func TestDropInMetadataJSONParses(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "include_metadata", true))
	tc, _ := mcp.AsTextContent(res.Content[0])
	body, _, _ := strings.Cut(strings.TrimPrefix(tc.Text, "--- metadata ---\n"), "\n\n")
	var meta map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &meta); err != nil {
		t.Fatalf("the metadata JSON does not parse: %v\n%s", err, tc.Text)
	}
	for _, k := range []string{"latency_ms", "content_items", "is_error", "truncated", "images_saved", "audio_saved", "results_saved", "original_size_bytes", "input_requests"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("no %q in the metadata JSON", k)
		}
	}
}

// Everything that counts the agent server's tools says twelve: validate of
// run-mcp itself, the README, AGENTS.md, mcpfront's doc and the CHANGELOG.
func TestEveryoneSaysTwelveTools(t *testing.T) {
	t.Parallel()
	h := start(t)
	text := mustText(t, h, "validate_mcp_server", map[string]any{"command": bin})
	wantContains(t, "validate of run-mcp itself", text, "\nTools Count: 12\n")
	for file, want := range map[string]string{
		"README.md":       "`reconnect_to_mcp` and nine other\n   tools",
		"AGENTS.md":       "the twelve tools",
		"mcpfront/doc.go": "specification's twelve tools",
		"CHANGELOG.md":    "the twelve\n  tools",
	} {
		if !strings.Contains(repoFile(t, file), want) {
			t.Errorf("%s does not say %q", file, want)
		}
	}
	if strings.Contains(repoFile(t, "README.md"), "mcp_task") {
		t.Error("the README still names mcp_task")
	}
}

// The README names each place where the specification decides otherwise
// than 3.0, in its section on the differences.
func TestReadmeNamesTheDifferencesFrom30(t *testing.T) {
	t.Parallel()
	readme := repoFile(t, "README.md")
	_, section, ok := strings.Cut(readme, "\n## Differences from run-mcp 3.0\n")
	if !ok {
		t.Fatal("the README has no section on the differences from 3.0")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, item := range []string{"**Script mode**", "**No implicit reconnect from a cached config**", "**`result.meta`**",
		"**The failure heading**", "**Exit 69 on a failed reconnect**", "**`input_requests` rounds**",
		"**A disconnected connection's record is kept**", "**An absolute command is accepted from another directory**"} {
		if !strings.Contains(section, item) {
			t.Errorf("the differences from 3.0 do not name %s", item)
		}
	}
}

// repoFile reads a file of the repository.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
