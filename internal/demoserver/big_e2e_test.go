package demoserver

import "testing"

// TestBigTextSeventyMillionOverTheWire sends the size run-mcp's 64 MB cap
// tests use through the real stdio path.
func TestBigTextSeventyMillionOverTheWire(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves 70 MB of JSON through the pipes; run without -race and -short")
	}
	s := connect(t, Options{}, legacy())
	if got := text(t, s.call(t, "big_text", map[string]any{"chars": 70_000_000})); len(got) != 70_000_000 {
		t.Errorf("got %d characters", len(got))
	}
}
