package intercept_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestLongTextIsTruncatedAndSavedWhole(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	text := strings.Repeat("0123456789", 20_000) // 200,000 chars
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(i.OutDir(), "result_r1.txt")
	want := text[:50_000] + "\n\n[truncated at 50,000 of 200,000 chars. Full text saved to " + path +
		` (result id: r1). Read more with read_result id="r1" offset=50000.]`
	if g := textOf(t, got.Content[0]); g != want {
		t.Errorf("reply tail = %q,\nwant %q", g[len(g)-150:], want[len(want)-150:])
	}
	if string(readFile(t, path)) != text {
		t.Error("result file does not hold the whole text")
	}
	if !stats.Truncated || stats.ResultsSaved != 1 || len(stats.Files) != 1 || stats.Files[0] != path {
		t.Errorf("stats = %+v", stats)
	}
	if textOf(t, res.Content[0]) != text {
		t.Error("the caller's result was modified")
	}
}

func TestTruncationCountsCharactersNotBytes(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 5})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("héllo wörld 🙂")}}
	got, _, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := textOf(t, got.Content[0])
	if !strings.HasPrefix(g, "héllo\n\n[truncated at 5 of 13 chars.") {
		t.Errorf("reply = %q", g)
	}
	// 5 multi-byte characters are not over a limit of 5.
	same := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("🙂🙂🙂🙂🙂")}}
	if got, _, _ := i.ToolResult(same, 0); got != same {
		t.Error("text of exactly MaxText characters was truncated")
	}
}

func TestPerCallTextLimit(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	text := strings.Repeat("x", 200_000)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}

	got, stats, err := i.ToolResult(res, intercept.NoLimit)
	if err != nil || got != res || stats.Truncated {
		t.Errorf("max_text_length=-1 still truncated (err %v)", err)
	}
	got, _, err = i.ToolResult(res, 10)
	if err != nil {
		t.Fatal(err)
	}
	g := textOf(t, got.Content[0])
	if !strings.HasPrefix(g, "xxxxxxxxxx\n\n[truncated at 10 of 200,000 chars.") || !strings.HasSuffix(g, `id="r1" offset=10.]`) {
		t.Errorf("reply = %q", g)
	}
}

func TestConfiguredNoLimitNeverTruncates(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: -1})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(strings.Repeat("x", 100_000))}}
	if got, _, _ := i.ToolResult(res, 0); got != res {
		t.Error("MaxText -1 truncated")
	}
}

// The limit bounds the text of the whole result: two items of 30,000
// characters under a limit of 50,000 show 50,000 in all, and one result
// file holds the whole text, so read_result goes on where the reply stops.
// Items after the cut are in the file, not the reply; media notes stay.
func TestTextOfTheWholeResultIsBounded(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	first, second := strings.Repeat("a", 30_000), strings.Repeat("b", 30_000)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(first), mcp.NewTextContent(second),
		mcp.NewTextContent("third"), mcp.NewImageContent(b64(fakePNG(100)), "image/png")}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 3 {
		t.Fatalf("content has %d items, want the first whole, the second cut, the image's note: %v", len(got.Content), got.Content)
	}
	if textOf(t, got.Content[0]) != first {
		t.Error("the first item, within the limit, was changed")
	}
	cut := textOf(t, got.Content[1])
	path := filepath.Join(i.OutDir(), "result_r1.txt")
	want := strings.Repeat("b", 19_998) + "\n\n[truncated at 50,000 of 60,009 chars. Full text saved to " + path +
		` (result id: r1). Read more with read_result id="r1" offset=50000.]`
	if cut != want {
		t.Errorf("the second item ends %q,\nwant %q", cut[len(cut)-160:], want[len(want)-160:])
	}
	savedPath(t, textOf(t, got.Content[2]), "Image", "img", "png")
	if string(readFile(t, path)) != first+"\n\n"+second+"\n\nthird" {
		t.Error("the result file does not hold the whole text, item after item")
	}
	page, err := i.Read("r1", 50_000, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(page, strings.Repeat("b", 10_002)+"\n\nthird") {
		t.Errorf("read_result from the note's offset does not go on where the reply stopped: %q", tail(page, 80))
	}
	if stats.ResultsSaved != 1 || !stats.Truncated {
		t.Errorf("stats = %+v, want one result saved", stats)
	}
}

// An item that starts past the limit shows nothing but the note.
func TestAnItemPastTheLimitIsOnlyTheNote(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 3})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("abc"), mcp.NewTextContent("defg")}}
	got, _, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 2 || textOf(t, got.Content[0]) != "abc" ||
		!strings.HasPrefix(textOf(t, got.Content[1]), "[truncated at 5 of 9 chars.") {
		t.Errorf("content = %v", got.Content)
	}
}

// A structuredContent over the limit is spilled like text: it leaves the
// result (a head of JSON is no object) and a last text item carries its
// head and the note; the whole JSON is in the file.
func TestOversizedStructuredContentIsSpilled(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 20})
	raw := `{"rows":["` + strings.Repeat("r", 100) + `"]}`
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ok")}, RawStructuredContent: json.RawMessage(raw)}
	res.StructuredContent = map[string]any{"rows": []any{strings.Repeat("r", 100)}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.StructuredContent != nil || got.RawStructuredContent != nil {
		t.Error("the oversized structuredContent is still in the result")
	}
	if len(got.Content) != 2 || textOf(t, got.Content[0]) != "ok" {
		t.Fatalf("content = %v", got.Content)
	}
	note := textOf(t, got.Content[1])
	if !strings.HasPrefix(note, "structuredContent (113 chars of JSON, over the text limit):\n"+raw[:20]+"\n\n[truncated at 20 of 113 chars.") {
		t.Errorf("note = %q", note)
	}
	if string(readFile(t, filepath.Join(i.OutDir(), "result_r1.txt"))) != raw {
		t.Error("the file does not hold the whole JSON")
	}
	if !stats.Truncated || stats.ResultsSaved != 1 {
		t.Errorf("stats = %+v", stats)
	}
	if res.RawStructuredContent == nil {
		t.Error("the caller's result was modified")
	}
	small := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("ok")}, RawStructuredContent: json.RawMessage(`{"a":1}`)}
	if got, _, _ := i.ToolResult(small, 0); got != small {
		t.Error("a structuredContent under the limit was touched")
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func TestConcurrentCallsGetDistinctIDs(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 2})
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Go(func() {
			res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("call %d", k))}}
			_, _, errs[k] = i.ToolResult(res, 0)
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for k := range n {
		if errs[k] != nil {
			t.Fatal(errs[k])
		}
		page, err := i.Read(fmt.Sprintf("r%d", k+1), 5, 0) // the call number
		if err != nil {
			t.Fatal(err)
		}
		seen[page[strings.Index(page, "\n")+1:]] = true
	}
	if len(seen) != n {
		t.Errorf("ids r1..r%d hold %d distinct results", n, len(seen))
	}
}

// From a shell there is no read_result: the note names the file to read.
func TestShellTruncationNoteNamesTheFile(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 10, Shell: true})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(strings.Repeat("y", 100))}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil || len(stats.Files) != 1 {
		t.Fatalf("err %v, files %v", err, stats.Files)
	}
	want := "yyyyyyyyyy\n\n[truncated at 10 of 100 chars. Full text saved to " + stats.Files[0] + "; read it there, or pass --max-text -1 for no limit.]"
	if g := textOf(t, got.Content[0]); g != want {
		t.Errorf("reply = %q\nwant    %q", g, want)
	}
}
