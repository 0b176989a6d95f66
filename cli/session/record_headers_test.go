package session

import (
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/actors"
)

// A session remembers its headers by name and a fingerprint of each value,
// and a command that names other values is refused naming the header only.
func TestMismatchNamesTheHeadersThatDiffer(t *testing.T) {
	r := NewRecord(t.TempDir(), "s", actors.Config{URL: "http://h/mcp", Headers: map[string]string{"X-Api-Key": "value-one", "X-Other": "same"}}, 0)
	if len(r.HeaderKeys) != 2 || strings.Contains(strings.Join(r.HeaderKeys, " ")+r.HeaderHashes["X-Api-Key"], "value-one") {
		t.Fatalf("the record: %+v", r)
	}
	same := &Caller{HeadersGiven: true, HeaderHashes: EnvHashes(map[string]string{"X-Api-Key": "value-one", "X-Other": "same"})}
	if got := r.Mismatch(same); got != "" {
		t.Errorf("the same headers: %q", got)
	}
	other := &Caller{HeadersGiven: true, HeaderHashes: EnvHashes(map[string]string{"X-Api-Key": "value-two", "X-Other": "same"})}
	got := r.Mismatch(other)
	if !strings.Contains(got, "headers differ for: X-Api-Key (names only") || strings.Contains(got, "value-") || strings.Contains(got, "X-Other") {
		t.Errorf("other headers: %q", got)
	}
}
