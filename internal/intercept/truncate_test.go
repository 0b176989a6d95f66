package intercept_test

import (
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

func TestEachLongItemGetsItsOwnResultID(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 3})
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("aaaa"), mcp.NewTextContent("ok"), mcp.NewTextContent("bbbb")}}
	got, stats, err := i.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(t, got.Content[0]), `id="r1"`) || textOf(t, got.Content[1]) != "ok" || !strings.Contains(textOf(t, got.Content[2]), `id="r2"`) {
		t.Errorf("content = %v", got.Content)
	}
	if stats.ResultsSaved != 2 {
		t.Errorf("ResultsSaved = %d", stats.ResultsSaved)
	}
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
