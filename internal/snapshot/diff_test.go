package snapshot_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
)

func tools(names ...string) []mcp.Tool {
	out := make([]mcp.Tool, 0, len(names))
	for _, n := range names {
		out = append(out, mcp.NewTool(n, mcp.WithDescription("does "+n)))
	}
	return out
}

// full is a listing with every kind offered.
func full(ts []mcp.Tool) snapshot.Listing {
	l := snapshot.Listing{
		Tools:     ts,
		Resources: []mcp.Resource{mcp.NewResource("file:///readme", "readme")},
		Templates: []mcp.ResourceTemplate{mcp.NewResourceTemplate("file:///{path}", "files")},
		Prompts:   []mcp.Prompt{mcp.NewPrompt("review")},
	}
	l.Has.Tools, l.Has.Resources, l.Has.Templates, l.Has.Prompts = true, true, true, true
	return l
}

func check(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("Diff =\n%q\nwant\n%q", got, want)
	}
}

// toolsLine returns the Tools line of a diff of two full listings.
func toolsLine(t *testing.T, d []string) string {
	t.Helper()
	if len(d) != 5 {
		t.Fatalf("Diff = %q, want a header and four kinds", d)
	}
	return d[1]
}

func checkLine(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("line =\n%q\nwant\n%q", got, want)
	}
}

func TestNothingChanged(t *testing.T) {
	check(t, snapshot.Diff(full(tools("a", "b")), full(tools("b", "a"))), "Changes since last connection: none")
	check(t, snapshot.Diff(snapshot.Listing{}, snapshot.Listing{}), "Changes since last connection: none")
}

func TestToolAdded(t *testing.T) {
	check(t, snapshot.Diff(full(tools("search")), full(tools("search", "search_images"))),
		"Changes since last connection:",
		"  Tools: +1 added (search_images)",
		"  Resources: unchanged",
		"  Resource templates: unchanged",
		"  Prompts: unchanged")
}

func TestOnlyRemovedIsAChange(t *testing.T) {
	check(t, snapshot.Diff(full(tools("a", "b")), full(tools("a"))),
		"Changes since last connection:",
		"  Tools: -1 removed (b)",
		"  Resources: unchanged",
		"  Resource templates: unchanged",
		"  Prompts: unchanged")
}

func TestModifiedSchema(t *testing.T) {
	before := full([]mcp.Tool{mcp.NewTool("search", mcp.WithString("query"))})
	after := full([]mcp.Tool{mcp.NewTool("search", mcp.WithString("query"), mcp.WithNumber("limit"))})
	check(t, snapshot.Diff(before, after),
		"Changes since last connection:",
		"  Tools: ~1 modified (search)",
		"  Resources: unchanged",
		"  Resource templates: unchanged",
		"  Prompts: unchanged")
}

func TestModifiedDescriptionAndAnnotations(t *testing.T) {
	before := full([]mcp.Tool{mcp.NewTool("a", mcp.WithDescription("old")), mcp.NewTool("b")})
	after := full([]mcp.Tool{mcp.NewTool("a", mcp.WithDescription("new")), mcp.NewTool("b", mcp.WithReadOnlyHintAnnotation(true))})
	checkLine(t, toolsLine(t, snapshot.Diff(before, after)), "  Tools: ~2 modified (a, b)")
}

func TestSchemaKeyOrderIsNotAModification(t *testing.T) {
	raw := func(s string) mcp.Tool { return mcp.NewToolWithRawSchema("t", "", json.RawMessage(s)) }
	before := full([]mcp.Tool{raw(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}}}`)})
	after := full([]mcp.Tool{raw(`{"properties":{"b":{"type":"number"},"a":{"type":"string"}},"type":"object"}`)})
	check(t, snapshot.Diff(before, after), "Changes since last connection: none")
}

func TestCombinedChangesAreSortedAddedModifiedRemoved(t *testing.T) {
	before := full([]mcp.Tool{mcp.NewTool("d"), mcp.NewTool("c"), mcp.NewTool("b")})
	after := full([]mcp.Tool{mcp.NewTool("c", mcp.WithDescription("x")), mcp.NewTool("b", mcp.WithDescription("y")), mcp.NewTool("a")})
	checkLine(t, toolsLine(t, snapshot.Diff(before, after)), "  Tools: +1 added (a), ~2 modified (b, c), -1 removed (d)")
}

func TestOtherKindsAreKeyedByURIAndName(t *testing.T) {
	before, after := full(nil), full(nil)
	after.Resources = []mcp.Resource{mcp.NewResource("file:///readme", "renamed")} // same URI, new name
	after.Templates = []mcp.ResourceTemplate{mcp.NewResourceTemplate("file:///{dir}/{path}", "files")}
	after.Prompts = append(after.Prompts, mcp.NewPrompt("explain"))
	check(t, snapshot.Diff(before, after),
		"Changes since last connection:",
		"  Tools: unchanged",
		"  Resources: ~1 modified (file:///readme)",
		"  Resource templates: +1 added (file:///{dir}/{path}), -1 removed (file:///{path})",
		"  Prompts: +1 added (explain)")
}

func TestCapabilityGainedAndLost(t *testing.T) {
	var noPrompts snapshot.Listing
	noPrompts.Has.Tools = true
	noPrompts.Tools = tools("a")
	withPrompts := noPrompts
	withPrompts.Has.Prompts = true
	withPrompts.Prompts = []mcp.Prompt{mcp.NewPrompt("p1"), mcp.NewPrompt("p2")}

	check(t, snapshot.Diff(noPrompts, withPrompts),
		"Changes since last connection:",
		"  Tools: unchanged",
		"  Prompts: +2 added (p1, p2)")
	check(t, snapshot.Diff(withPrompts, noPrompts),
		"Changes since last connection:",
		"  Tools: unchanged",
		"  Prompts: -2 removed (p1, p2)")
}

func TestLongGroupsAreCut(t *testing.T) {
	var names []string
	for n := range 13 {
		names = append(names, fmt.Sprintf("t%02d", n))
	}
	checkLine(t, toolsLine(t, snapshot.Diff(full(nil), full(tools(names...)))),
		"  Tools: +13 added (t00, t01, t02, t03, t04, t05, t06, t07, t08, t09, +3 more)")
	checkLine(t, toolsLine(t, snapshot.Diff(full(tools(names[:10]...)), full(nil))),
		"  Tools: -10 removed (t00, t01, t02, t03, t04, t05, t06, t07, t08, t09)")
}

func TestDiffDoesNotModifyListings(t *testing.T) {
	before, after := full(tools("b", "a")), full(tools("c"))
	snapshot.Diff(before, after)
	if before.Tools[0].Name != "b" || after.Tools[0].Name != "c" {
		t.Error("Diff reordered or changed its input")
	}
}
