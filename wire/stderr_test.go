package wire

import (
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The lines a drain records do not depend on how the pipe's bytes were cut
// into reads: one byte at a time and one big read give the same lines.
func TestDrainLinesSameWhateverTheReads(t *testing.T) {
	input := "first\r\n\nsecond\n" + strings.Repeat("z", 40) + "\nlast words"
	for name, wrap := range map[string]func(*strings.Reader) interface{ Read([]byte) (int, error) }{
		"whole":    func(r *strings.Reader) interface{ Read([]byte) (int, error) } { return r },
		"one-byte": func(r *strings.Reader) interface{ Read([]byte) (int, error) } { return iotest.OneByteReader(r) },
		"half":     func(r *strings.Reader) interface{ Read([]byte) (int, error) } { return iotest.HalfReader(r) },
	} {
		ring := drained(wrap(strings.NewReader(input)), 16)
		var got []string
		for _, l := range ring.Since(0).Lines {
			got = append(got, l.Text)
		}
		want := []string{"first", "", "second", strings.Repeat("z", 16) + " [... 24 more bytes cut ...]", "last words"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: lines = %q, want %q", name, got, want)
		}
	}
}

// A flood far longer than the ring keeps its first and last lines, numbered
// as written, when many lines arrive in one read.
func TestDrainLinesFloodKeepsHeadAndTail(t *testing.T) {
	const n = 50_000
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	ring := drained(strings.NewReader(b.String()), maxStderrLine)
	ex := ring.Since(0)
	if ex.Total != n || len(ex.Lines) != RingHead+RingTail {
		t.Fatalf("total %d with %d kept, want %d with %d", ex.Total, len(ex.Lines), n, RingHead+RingTail)
	}
	wantRun(t, "head", ex.Lines[:RingHead], 1, RingHead)
	wantRun(t, "tail", ex.Lines[RingHead:], n-RingTail+1, n)
	if ex.Elided != n-RingHead-RingTail || ex.ElidedBefore != n-RingTail+1 {
		t.Errorf("Elided = %d before #%d", ex.Elided, ex.ElidedBefore)
	}
}

// drained drains r into a feed, and the feed into a ring, as a connection's
// actor does.
func drained(r interface{ Read([]byte) (int, error) }, limit int) *Ring {
	feed := newStderrFeed()
	drainLines(r, feed, limit)
	ring := NewRing()
	ring.AppendBatch(feed.Take())
	return ring
}

// An owner that takes its feed late gets the same lines as one that takes
// every batch at once, or every few thousand lines (each batch given back
// for the next): what the feed dropped meanwhile the ring would have
// dropped too, and a recycled batch carries nothing over.
func TestAFeedTakenLateKeepsWhatTheRingKeeps(t *testing.T) {
	const n = 10_000
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	often, late, chunked := NewRing(), NewRing(), NewRing()
	feed := newStderrFeed()
	s := splitter{out: feed, limit: maxStderrLine}
	whole := feed
	lateFeed := newStderrFeed()
	sl := splitter{out: lateFeed, limit: maxStderrLine}
	chunkFeed := newStderrFeed()
	sc := splitter{out: chunkFeed, limit: maxStderrLine}
	take := func(f *StderrFeed, r *Ring) {
		batch := f.Take()
		r.AppendBatch(batch)
		f.Recycle(batch)
	}
	now := time.Now()
	for i, line := range strings.SplitAfter(b.String(), "\n") {
		s.feed([]byte(line), now)
		take(whole, often)
		sl.feed([]byte(line), now)
		sc.feed([]byte(line), now)
		if i%2500 == 2499 {
			take(chunkFeed, chunked)
		}
	}
	take(chunkFeed, chunked)
	if fmt.Sprint(often.Since(0)) != fmt.Sprint(chunked.Since(0)) {
		t.Fatalf("a feed taken every 2,500 lines differs from one taken every line")
	}
	late.AppendBatch(lateFeed.Take())
	a, c := often.Since(0), late.Since(0)
	if fmt.Sprint(a) != fmt.Sprint(c) {
		t.Fatalf("a feed taken late differs:\n taken each line: total %d, %d kept\n taken once: total %d, %d kept", a.Total, len(a.Lines), c.Total, len(c.Lines))
	}
}

// A batch given back is where a later one is written (the one after the
// batch being filled meanwhile); one whose buffers grew past maxSpare is
// let go.
func TestAFeedWritesALaterBatchInTheOneGivenBack(t *testing.T) {
	feed := newStderrFeed()
	s := splitter{out: feed, limit: maxStderrLine}
	now := time.Now()
	s.feed([]byte("first\n"), now)
	first := feed.Take()
	feed.Recycle(first)
	s.feed([]byte("second\n"), now)
	feed.Recycle(feed.Take())
	s.feed([]byte("third\n"), now)
	third := feed.Take()
	if third.Len() != 1 || string(third.line(0)) != "third" {
		t.Fatalf("the third batch holds %d lines: %q", third.Len(), third.text)
	}
	if &third.text[0] != &first.text[0] {
		t.Errorf("the third batch was written in new buffers, not in the first's")
	}
	feed.Recycle(StderrBatch{text: make([]byte, 0, 2*maxSpare)})
	feed.Take()
	s.feed([]byte("fourth\n"), now)
	if fourth := feed.Take(); cap(fourth.text) >= 2*maxSpare {
		t.Errorf("a batch of %d bytes was kept for reuse", cap(fourth.text))
	}
}
