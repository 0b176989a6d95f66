package wire

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// Regression tests of bugs found while writing the suites; each asserts
// the intended behaviour.

// A message of exactly the cap is not over it, yet readMessage counts the
// newline against the limit (lines.go: len(buf)+len(chunk) > limit) and
// refuses it as "a message of 64 bytes, over the 64 MB cap".
func TestRegressionReadMessageExactlyAtTheCap(t *testing.T) {
	msg := strings.Repeat("x", 64)
	line, err := readMessage(bufio.NewReaderSize(strings.NewReader(msg+"\n"), 16), 64)
	if err != nil || string(line) != msg+"\n" {
		t.Fatalf("a message of exactly the limit: %v", err)
	}
}

// Last(n) for more lines than the tail holds: the last 1,050 lines of
// 100,000 are 98,951..100,000, of which 50 were dropped. The excerpt holds
// the 1,000 kept ones and must mark the 50; ring.go (Last) zeroes Elided
// whenever the first kept line is the one right after the gap.
func TestRegressionRingLastHidesTheGapInItsWindow(t *testing.T) {
	r := NewRing()
	fill(r, 100_000, time.Now())
	ex := r.Last(1_050)
	if ex.Elided != 50 {
		t.Errorf("Last(1050): Elided = %d, want 50", ex.Elided)
	}
	if out := ex.Render(false); out[0] != "[... 50 of 100,000 lines elided ...]" {
		t.Errorf("Last(1050) starts %q, want the marker", out[0])
	}
}
