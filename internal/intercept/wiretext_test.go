package intercept_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/wire"
)

// TestTruncatingAWireTextMatchesEncodingJSON runs a long text full of
// escapes (\uXXXX, surrogate pairs, lone surrogates, \" \\ \n), raw
// multi-byte UTF-8 and invalid bytes through wire.ParseToolResult's
// one-pass decode and truncates it at every limit across a stretch of
// them, so the cut falls inside each kind; the reply and the saved file
// must be byte for byte what they are when encoding/json decodes the text.
func TestTruncatingAWireTextMatchesEncodingJSON(t *testing.T) {
	piece := `a\"b\\c\nd\u00e9e\u4e2df\ud83d\ude00g\ud83dh\ude00i` + "é中😀\xffj\xe2\x82k"
	escaped := strings.Repeat(piece, 4000)
	raw := json.RawMessage(`{"content":[{"type":"text","text":"` + escaped + `"}]}`)
	var want string
	if err := json.Unmarshal([]byte(`"`+escaped+`"`), &want); err != nil {
		t.Fatal(err)
	}
	for limit := 100; limit < 140; limit++ {
		fast := newInterceptor(t, intercept.Options{MaxText: limit})
		res, err := wire.ParseToolResult(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := fast.ToolResult(res, 0)
		if err != nil {
			t.Fatal(err)
		}
		slow := newInterceptor(t, intercept.Options{MaxText: limit})
		ref, _, err := slow.ToolResult(&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(want)}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		g := strings.ReplaceAll(textOf(t, got.Content[0]), fast.OutDir(), "DIR")
		w := strings.ReplaceAll(textOf(t, ref.Content[0]), slow.OutDir(), "DIR")
		if g != w {
			t.Fatalf("limit %d: reply\n%q\nwant\n%q", limit, g[max(0, len(g)-300):], w[max(0, len(w)-300):])
		}
		gf, err := os.ReadFile(fast.OutDir() + "/result_r1.txt")
		if err != nil {
			t.Fatal(err)
		}
		if string(gf) != want {
			t.Fatalf("limit %d: the saved file differs from encoding/json's text", limit)
		}
	}
}
