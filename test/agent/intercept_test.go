package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// direct connects an mcp-go client straight to `run-mcp demo-server`, to
// compare what run-mcp passes through with what the server really sends.
func direct(t *testing.T) *client.Client {
	t.Helper()
	c := client.NewClient(transport.NewStdioWithOptions(bin, nil, []string{"demo-server"}),
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start demo-server: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "agent-test-direct", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize demo-server: %v", err)
	}
	return c
}

func directCall(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := c.CallTool(ctx, callRequest(name, args))
	if err != nil {
		t.Fatalf("direct %s: %v", name, err)
	}
	return res
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A well-behaved result under the limits passes through untouched.
func TestPassthrough(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	d := direct(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"message": "hi"}},
		{"add", map[string]any{"a": 2, "b": 3.5}},
		{"fail", map[string]any{"message": "nope"}},
	} {
		want := directCall(t, d, c.tool, c.args)
		got := h.call(t, "call_mcp_primitive", tool(c.tool, c.args))
		if g, w := mustJSON(t, got.Content), mustJSON(t, want.Content); g != w {
			t.Errorf("%s: content through run-mcp\n%s\ndirect\n%s", c.tool, g, w)
		}
		if g, w := mustJSON(t, got.StructuredContent), mustJSON(t, want.StructuredContent); g != w {
			t.Errorf("%s: structuredContent through run-mcp %s, direct %s", c.tool, g, w)
		}
		if got.IsError != want.IsError {
			t.Errorf("%s: isError through run-mcp %v, direct %v", c.tool, got.IsError, want.IsError)
		}
	}
}

// An image is saved to --out-dir and replaced by a note with its path.
func TestImageSaved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, "-o", dir)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("image", nil, "include_metadata", true))
	text := joinText(res)
	if res.IsError {
		t.Fatalf("image failed:\n%s", text)
	}
	for _, c := range res.Content {
		if _, ok := c.(mcp.ImageContent); ok {
			t.Errorf("the image was passed inline instead of saved")
		}
	}
	m := regexp.MustCompile(`\[Image saved to (` + regexp.QuoteMeta(dir) + `/img_[^ ]+\.png) \((\d+)KB\)\]`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no [Image saved to %s/img_….png (NKB)] note:\n%s", dir, text)
	}
	data, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatalf("the saved image: %v", err)
	}
	if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("%s is not a PNG (starts %q)", m[1], data[:min(8, len(data))])
	}
	if want := fmt.Sprint((len(data) + 1023) / 1024); m[2] != want {
		t.Errorf("note says %sKB for %d bytes, want %sKB", m[2], len(data), want)
	}
	_, meta := metadata(t, res)
	if n, _ := meta["images_saved"].(float64); n != 1 {
		t.Errorf("images_saved = %v, want 1", meta["images_saved"])
	}
}

// Text over --max-text is spilled to disk; read_result pages through it.
func TestSpillAndReadResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, "-o", dir, "--max-text", "50000")
	connectDemo(t, h, "")
	full := joinText(directCall(t, direct(t), "big_text", map[string]any{"chars": 200000}))
	if len(full) != 200000 {
		t.Fatalf("direct big_text gave %d chars", len(full))
	}

	text := mustText(t, h, "call_mcp_primitive", tool("big_text", map[string]any{"chars": 200000}))
	wantContains(t, "spilled reply", text,
		"[truncated at 50,000 of 200,000 chars.",
		filepath.Join(dir, "result_r1.txt"),
		`read_result id="r1" offset=50000`,
	)
	if !strings.HasPrefix(text, full[:50000]+"\n\n[truncated at ") {
		t.Errorf("the reply does not keep the first 50,000 chars before the note")
	}
	saved, err := os.ReadFile(filepath.Join(dir, "result_r1.txt"))
	if err != nil || string(saved) != full {
		t.Errorf("result_r1.txt does not hold the whole text (err %v, %d chars)", err, len(saved))
	}

	page := mustText(t, h, "read_result", map[string]any{"id": "r1", "offset": 50000, "length": 50000})
	header := "[result r1: chars 50000–100000 of 200000 — more available (continue at offset 100000)]"
	if want := header + "\n" + full[50000:100000]; page != want {
		t.Errorf("read_result offset=50000: header %q, want %q; text matches: %v",
			firstLineOf(page), header, strings.TrimPrefix(page, firstLineOf(page)+"\n") == full[50000:100000])
	}

	page = mustText(t, h, "read_result", map[string]any{"id": "r1", "offset": 150000})
	header = "[result r1: chars 150000–200000 of 200000 — end of result]"
	if want := header + "\n" + full[150000:]; page != want {
		t.Errorf("read_result to the end: header %q, want %q", firstLineOf(page), header)
	}

	// A length over the page maximum is capped at --max-text.
	page = mustText(t, h, "read_result", map[string]any{"id": "r1", "offset": 0, "length": 1000000})
	wantContains(t, "read_result with a huge length", page, "[result r1: chars 0–50000 of 200000 — more available (continue at offset 50000)]")

	text = mustFail(t, h, "read_result", map[string]any{"id": "r1", "offset": 200000})
	wantContains(t, "read_result past the end", text, "past the end")
	text = mustFail(t, h, "read_result", map[string]any{"id": "r9"})
	wantContains(t, "read_result of an unknown id", text, `"r9"`, "r1")

	// max_text_length -1 turns truncation off for one call.
	text = mustText(t, h, "call_mcp_primitive", tool("big_text", map[string]any{"chars": 60000}, "max_text_length", -1))
	if text != full[:60000] {
		t.Errorf("max_text_length -1 still changed the text (%d chars)", len(text))
	}
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
