package toolcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func tools() []mcp.Tool {
	return []mcp.Tool{
		mcp.NewTool("search", mcp.WithString("q", mcp.Required()), mcp.WithNumber("limit")),
		mcp.NewTool("search_images", mcp.WithString("q", mcp.Required())),
		{Name: "raw", RawInputSchema: []byte(`{"type":"object","properties":{"a":{}},"required":["a"]}`)},
	}
}

func TestUnknownToolSuggestsAndLists(t *testing.T) {
	_, err := Check(tools(), "serch", nil)
	var unknown *UnknownToolError
	if !errors.As(err, &unknown) {
		t.Fatalf("want UnknownToolError, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{`Tool "serch" not found.`, `Did you mean "search"?`, "raw, search, search_images"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestMissingRequiredNamed(t *testing.T) {
	_, err := Check(tools(), "search", map[string]any{"limit": 3})
	var missing *MissingArgsError
	if !errors.As(err, &missing) {
		t.Fatalf("want MissingArgsError, got %v", err)
	}
	if want := `Tool "search" requires: q. Received: {"limit":3}`; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %q, want prefix %q", err.Error(), want)
	}
	if _, err := Check(tools(), "raw", map[string]any{}); err == nil {
		t.Fatal("a raw schema's required argument was not checked")
	}
	if _, err := Check(tools(), "search", map[string]any{"q": "x"}); err != nil {
		t.Fatalf("a complete call was refused: %v", err)
	}
}
