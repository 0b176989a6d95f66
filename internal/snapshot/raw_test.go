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

// byEncodingJSON is what Items answered before it walked pages itself.
func byEncodingJSON(page []byte, field string) ([]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(page, &m); err != nil {
		return nil, err
	}
	list, ok := m[field]
	if !ok || string(list) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	err := json.Unmarshal(list, &items)
	return items, err
}

func sameItems(t *testing.T, page string) {
	t.Helper()
	got, gerr := snapshot.Items(json.RawMessage(page), "tools")
	want, werr := byEncodingJSON([]byte(page), "tools")
	if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("Items(%q): error %v, encoding/json says %v", page, gerr, werr)
	}
	if len(got) != len(want) || (got == nil) != (want == nil) {
		t.Fatalf("Items(%q) = %q, encoding/json gives %q", page, got, want)
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("Items(%q)[%d] = %s, encoding/json gives %s", page, i, got[i], want[i])
		}
	}
}

// Items answers what encoding/json answers, entries, errors and all, for
// pages it walks itself and pages it hands over.
func TestItemsAgreesWithEncodingJSON(t *testing.T) {
	for _, page := range []string{
		`{"tools":[{"name":"a","z":1.0},{"name":"b"}],"nextCursor":"c"}`,
		` { "tools" : [ {"name":"a"} , 7, "s", null, [1,2] ] } `,
		`{"tools":[]}`,
		`{"tools":null}`,
		`{}`,
		`{"tools":[{"name":"first"}],"tools":[{"name":"last"}]}`,
		`{"too\u006cs":[{"name":"escaped key"}]}`,
		`{"Tools":[{"name":"other case"}]}`,
		`{"tools":{"name":"not an array"}}`,
		`{"tools":"nope"}`,
		`[{"tools":[]}]`,
		`{"tools":[1,]}`,
		`{"tools":[{"name":"a"}]`,
		`{"tools":[{"name":"a"}]} trailing`,
		`{"tools":[{"name":"\ud83d\ude00 \u00e9"}]}`,
		"{\"tools\":[{\"name\":\"bad \xff utf8\"}]}",
	} {
		sameItems(t, page)
	}
}

func FuzzItems(f *testing.F) {
	f.Add(`{"tools":[{"name":"a","z":1.0},{"name":"b"}],"nextCursor":"c"}`)
	f.Add(`{"tools":[[[[{"a":[{}]}]]]]}`)
	f.Add(`{"tools":null,"tools":[1]}`)
	f.Fuzz(func(t *testing.T, page string) { sameItems(t, page) })
}
