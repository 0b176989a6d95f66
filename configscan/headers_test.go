package configscan

import (
	"maps"
	"testing"
)

// A header given on the command line or in connect_to_mcp replaces the
// entry's of the same name, whatever its case, and leaves the entry alone.
func TestHeadersWithOverridesByNameInAnyCase(t *testing.T) {
	l := Launch{Headers: map[string]string{"Authorization": "Bearer entry", "X-Team": "a"}}
	got := l.HeadersWith(map[string]string{"authorization": "Bearer flag", "X-Extra": "b"})
	want := map[string]string{"authorization": "Bearer flag", "X-Team": "a", "X-Extra": "b"}
	if !maps.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	if l.Headers["Authorization"] != "Bearer entry" || len(l.Headers) != 2 {
		t.Errorf("the entry's headers changed: %v", l.Headers)
	}
	if got := (Launch{}).HeadersWith(nil); got != nil {
		t.Errorf("no headers on either side gave %v, want none", got)
	}
}
