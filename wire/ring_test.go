package wire

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fill appends lines "line 1" … "line n", one millisecond apart from base.
func fill(r *Ring, n int, base time.Time) {
	for i := 1; i <= n; i++ {
		r.Append(fmt.Sprintf("line %d", i), base.Add(time.Duration(i)*time.Millisecond))
	}
}

func seqs(lines []Line) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		out[i] = l.Seq
	}
	return out
}

// wantRun checks that lines are exactly the sequence from..to, each with its text.
func wantRun(t *testing.T, what string, lines []Line, from, to int) {
	t.Helper()
	if len(lines) != to-from+1 {
		t.Fatalf("%s: %d lines, want %d (%d..%d)", what, len(lines), to-from+1, from, to)
	}
	for i, l := range lines {
		want := from + i
		if l.Seq != want || l.Text != fmt.Sprintf("line %d", want) {
			t.Fatalf("%s: line %d is #%d %q, want #%d %q", what, i, l.Seq, l.Text, want, fmt.Sprintf("line %d", want))
		}
	}
}

func TestRingKeepsHeadAndTailOf100000Lines(t *testing.T) {
	r := NewRing()
	fill(r, 100_000, time.Now())
	if got := r.Total(); got != 100_000 {
		t.Fatalf("Total() = %d, want 100000", got)
	}
	ex := r.Since(0)
	if ex.Total != 100_000 {
		t.Errorf("Excerpt.Total = %d", ex.Total)
	}
	if len(ex.Lines) != RingHead+RingTail {
		t.Fatalf("Since(0) kept %d lines, want %d", len(ex.Lines), RingHead+RingTail)
	}
	wantRun(t, "head", ex.Lines[:RingHead], 1, 100)
	wantRun(t, "tail", ex.Lines[RingHead:], 99_001, 100_000)
	if ex.Elided != 98_900 || ex.ElidedBefore != 99_001 {
		t.Errorf("Elided = %d before #%d, want 98900 before #99001", ex.Elided, ex.ElidedBefore)
	}

	out := ex.Render(false)
	if len(out) != 1101 {
		t.Fatalf("Render gave %d lines, want 1100 plus the marker", len(out))
	}
	const marker = "[... 98,900 of 100,000 lines elided ...]"
	if out[99] != "line 100" || out[100] != marker || out[101] != "line 99001" {
		t.Errorf("around the gap: %q, %q, %q; want %q, %q, %q", out[99], out[100], out[101], "line 100", marker, "line 99001")
	}
	if out[0] != "line 1" || out[1100] != "line 100000" {
		t.Errorf("first/last rendered: %q / %q", out[0], out[1100])
	}
	if n := strings.Count(strings.Join(out, "\n"), "elided"); n != 1 {
		t.Errorf("%d markers, want exactly one", n)
	}
}

func TestRingWithoutOverflowHasNoMarker(t *testing.T) {
	for _, n := range []int{0, 1, RingHead, RingHead + 1, RingHead + RingTail} {
		r := NewRing()
		fill(r, n, time.Now())
		ex := r.Since(0)
		if len(ex.Lines) != n || ex.Elided != 0 {
			t.Errorf("%d lines: kept %d, elided %d; want all kept, none elided", n, len(ex.Lines), ex.Elided)
		}
		if n > 0 {
			wantRun(t, fmt.Sprintf("%d lines", n), ex.Lines, 1, n)
		}
		for _, l := range ex.Render(false) {
			if strings.Contains(l, "elided") {
				t.Errorf("%d lines: unexpected marker %q", n, l)
			}
		}
	}
	// One line past head+tail: exactly one is elided, and the marker says so.
	r := NewRing()
	fill(r, RingHead+RingTail+1, time.Now())
	out := r.Since(0).Render(false)
	if len(out) != 1101 || out[100] != "[... 1 of 1,101 lines elided ...]" || out[101] != "line 102" {
		t.Errorf("1101 lines: len %d, out[100] = %q, out[101] = %q", len(out), out[100], out[101])
	}
}

func TestRingSinceCursor(t *testing.T) {
	r := NewRing()
	fill(r, 100_000, time.Now())

	// A cursor inside the head: the rest of the head, the gap, the tail.
	ex := r.Since(50)
	wantRun(t, "Since(50) head", ex.Lines[:50], 51, 100)
	wantRun(t, "Since(50) tail", ex.Lines[50:], 99_001, 100_000)
	if ex.Elided != 98_900 {
		t.Errorf("Since(50).Elided = %d, want 98900", ex.Elided)
	}

	// A cursor inside the gap: only what was dropped after it counts.
	ex = r.Since(5_000)
	wantRun(t, "Since(5000)", ex.Lines, 99_001, 100_000)
	if ex.Elided != 94_000 || ex.ElidedBefore != 99_001 {
		t.Errorf("Since(5000): elided %d before #%d, want 94000 before #99001", ex.Elided, ex.ElidedBefore)
	}
	if out := ex.Render(false); out[0] != "[... 94,000 of 100,000 lines elided ...]" {
		t.Errorf("Since(5000) first rendered line %q", out[0])
	}

	// A cursor inside the tail: nothing elided after it.
	ex = r.Since(99_500)
	wantRun(t, "Since(99500)", ex.Lines, 99_501, 100_000)
	if ex.Elided != 0 {
		t.Errorf("Since(99500).Elided = %d, want 0", ex.Elided)
	}

	// The cursor a reader gets back sees only what comes next.
	next := r.Total()
	if ex := r.Since(next); len(ex.Lines) != 0 || ex.Elided != 0 {
		t.Errorf("Since(Total()) = %d lines, %d elided; want nothing", len(ex.Lines), ex.Elided)
	}
	r.Append("after", time.Now())
	ex = r.Since(next)
	if len(ex.Lines) != 1 || ex.Lines[0].Text != "after" || ex.Lines[0].Seq != 100_001 || ex.Elided != 0 {
		t.Errorf("Since(%d) after one more line = %+v", next, ex)
	}
}

func TestRingLast(t *testing.T) {
	r := NewRing()
	fill(r, 100_000, time.Now())

	ex := r.Last(10)
	wantRun(t, "Last(10)", ex.Lines, 99_991, 100_000)
	if ex.Elided != 0 {
		t.Errorf("Last(10).Elided = %d", ex.Elided)
	}
	if out := ex.Render(false); len(out) != 10 || out[9] != "line 100000" {
		t.Errorf("Last(10).Render = %q", out)
	}

	ex = r.Last(RingTail)
	wantRun(t, "Last(1000)", ex.Lines, 99_001, 100_000)

	// n <= 0 is everything, as Since(0).
	for _, n := range []int{0, -1} {
		ex = r.Last(n)
		if len(ex.Lines) != 1100 || ex.Elided != 98_900 {
			t.Errorf("Last(%d): %d lines, %d elided; want 1100 and 98900", n, len(ex.Lines), ex.Elided)
		}
	}

	// More than was ever written: everything, no marker.
	small := NewRing()
	fill(small, 5, time.Now())
	ex = small.Last(20)
	wantRun(t, "Last(20) of 5", ex.Lines, 1, 5)
	if ex.Elided != 0 {
		t.Errorf("Last(20) of 5: elided %d", ex.Elided)
	}
	ex = small.Last(2)
	wantRun(t, "Last(2) of 5", ex.Lines, 4, 5)
}

func TestRingRenderStamps(t *testing.T) {
	r := NewRing()
	at := time.Date(2025, 3, 4, 15, 4, 5, 7_000_000, time.Local)
	r.Append("Error: Cannot find module './db-config.js'", at)
	r.Append("    at loadConfig (src/index.js:12:9)", at.Add(time.Millisecond))
	got := r.Since(0).Render(true)
	want := []string{
		"15:04:05.007 #1  Error: Cannot find module './db-config.js'",
		"15:04:05.008 #2      at loadConfig (src/index.js:12:9)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Render(true) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := r.Since(0).Render(false); got[0] != "Error: Cannot find module './db-config.js'" {
		t.Errorf("Render(false)[0] = %q", got[0])
	}

	// Stamps on a ring that overflowed: the marker itself carries no stamp.
	big := NewRing()
	fill(big, 1_500, at)
	out := big.Since(0).Render(true)
	if out[100] != "[... 400 of 1,500 lines elided ...]" {
		t.Errorf("marker = %q", out[100])
	}
	if want := at.Add(501*time.Millisecond).Format("15:04:05.000") + " #501  line 501"; out[101] != want {
		t.Errorf("first tail line = %q, want %q", out[101], want)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 7: "7", 999: "999", 1_000: "1,000", 98_900: "98,900", 100_000: "100,000",
		1_234_567: "1,234,567", 71_029_068: "71,029,068", -1_234: "-1,234",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Marker(137, 1_237); got != "[... 137 of 1,237 lines elided ...]" {
		t.Errorf("Marker = %q", got)
	}
}
