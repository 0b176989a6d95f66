package snapshot_test

import (
	"encoding/json"
	"testing"

	"github.com/run-mcp/run-mcp/internal/snapshot"
)

func rawTools(items ...string) snapshot.Listing {
	var l snapshot.Listing
	l.Has.Tools = true
	for _, it := range items {
		l.Raw.Tools = append(l.Raw.Tools, json.RawMessage(it))
	}
	return l
}

// A change only in a key no typed library knows is still a change, and a
// change only in key order is not.
func TestRawEntriesAreCompared(t *testing.T) {
	before := rawTools(`{"name":"a","inputSchema":{"type":"object","x-custom":1}}`, `{"name":"b","description":"d","x-k":true}`)
	after := rawTools(`{"name":"a","inputSchema":{"type":"object","x-custom":2}}`, `{"x-k":true,"description":"d","name":"b"}`)
	checkLine(t, snapshot.Diff(before, after)[1], "  Tools: ~1 modified (a)")
	if got := snapshot.Summary(after); got != "2 tools" {
		t.Errorf("Summary = %q, want 2 tools", got)
	}
}

func TestItemsKeepEachEntryAsSent(t *testing.T) {
	items, err := snapshot.Items(json.RawMessage(`{"tools":[{"name":"a","z":1.0},{"name":"b"}],"nextCursor":"c"}`), "tools")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || string(items[0]) != `{"name":"a","z":1.0}` {
		t.Fatalf("Items = %s", items)
	}
	if e := snapshot.Read(items[1]); e.Key("tools") != "b" {
		t.Errorf("Key = %q", e.Key("tools"))
	}
	if items, err := snapshot.Items(json.RawMessage(`{}`), "tools"); err != nil || items != nil {
		t.Errorf("a page without the field: %v, %v", items, err)
	}
}
