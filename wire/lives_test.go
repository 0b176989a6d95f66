package wire

import (
	"fmt"
	"testing"
	"time"
)

// startInto starts `sh -c script` writing its stderr into ring, and waits
// until it has exited and its stderr has been read to the end.
func startInto(t *testing.T, sp *Spawner, ring *Ring, script string) *Process {
	t.Helper()
	p, err := StartInto(sp, Spec{Command: "sh", Args: []string{"-c", script}}, ring)
	if err != nil {
		t.Fatalf("StartInto(sh -c %q): %v", script, err)
	}
	t.Cleanup(func() { p.Stop() })
	select {
	case <-p.Done():
	case <-time.After(patience):
		t.Fatalf("sh -c %q did not end", script)
	}
	return p
}

// wantSeqs checks that lines hold positions from..to, in order, without a gap.
func wantSeqs(t *testing.T, what string, lines []Line, from, to int) {
	t.Helper()
	if len(lines) != to-from+1 {
		t.Fatalf("%s: %d lines, want %d (#%d..#%d)", what, len(lines), to-from+1, from, to)
	}
	for i, l := range lines {
		if l.Seq != from+i {
			t.Fatalf("%s: line %d is #%d, want #%d", what, i, l.Seq, from+i)
		}
	}
}

func texts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// Positions run on from one process to the next of a connection, with one
// marker line between them naming both pids and how the first ended; a
// cursor taken before the restart shows everything the new process wrote.
func TestRingContinuesAcrossProcesses(t *testing.T) {
	sp := newSpawner(t)
	ring := NewRing()
	first := startInto(t, sp, ring, "echo a1 >&2; echo a2 >&2; exit 1")
	cursor := ring.Total()
	if cursor != 2 || first.StderrBase() != 0 {
		t.Fatalf("after the first process: Total = %d, base = %d; want 2 and 0", cursor, first.StderrBase())
	}
	second := startInto(t, sp, ring, "echo b1 >&2; echo b2 >&2")

	marker := fmt.Sprintf("[--- process %d ended: The server exited with code 1.; process %d started ---]", first.Pid(), second.Pid())
	all := ring.Since(0)
	want := []string{"a1", "a2", marker, "b1", "b2"}
	if got := texts(all.Lines); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Since(0) = %q, want %q", got, want)
	}
	wantSeqs(t, "Since(0)", all.Lines, 1, 5)
	if all.Total != 5 || all.Elided != 0 {
		t.Errorf("Total = %d, Elided = %d; want 5 and 0", all.Total, all.Elided)
	}
	if second.StderrBase() != 3 {
		t.Errorf("second StderrBase = %d, want 3 (after the marker)", second.StderrBase())
	}

	// The cursor from before the restart: the marker, then all the new lines.
	after := ring.Since(cursor)
	if got := texts(after.Lines); fmt.Sprint(got) != fmt.Sprint([]string{marker, "b1", "b2"}) {
		t.Errorf("Since(%d) = %q, want the marker and b1, b2", cursor, got)
	}
	// A report about the second process reads from its base only.
	if got := texts(ring.Since(second.StderrBase()).Lines); fmt.Sprint(got) != "[b1 b2]" {
		t.Errorf("Since(base) = %q, want [b1 b2]", got)
	}
}

// A process run-mcp stopped is named as such in the marker, not as a crash.
func TestRingMarkerSaysStoppedByRunMCP(t *testing.T) {
	sp := newSpawner(t)
	ring := NewRing()
	first, err := StartInto(sp, Spec{Command: "sh", Args: []string{"-c", "echo up >&2; exec sleep 60"}}, ring)
	if err != nil {
		t.Fatal(err)
	}
	waitStderr(t, first, "up")
	stopBounded(t, first)
	second := startInto(t, sp, ring, "echo again >&2")
	lines := texts(ring.Since(1).Lines)
	want := fmt.Sprintf("[--- process %d ended: The server was stopped by run-mcp (SIGTERM).; process %d started ---]", first.Pid(), second.Pid())
	if len(lines) != 2 || lines[0] != want || lines[1] != "again" {
		t.Errorf("Since(1) = %q, want [%q again]", lines, want)
	}
}

// Retention across lives: the head is the connection's first RingHead lines
// (the first process's start-up), the tail its last RingTail lines, and the
// positions in between are counted in the one gap.
func TestRingRetentionAcrossProcesses(t *testing.T) {
	sp := newSpawner(t)
	ring := NewRing()
	loop := `i=1; while [ $i -le %d ]; do echo "%s$i" >&2; i=$((i+1)); done`
	startInto(t, sp, ring, fmt.Sprintf(loop, 150, "a"))
	second := startInto(t, sp, ring, fmt.Sprintf(loop, 1200, "b"))

	total := 150 + 1 + 1200
	ex := ring.Since(0)
	if ex.Total != total {
		t.Fatalf("Total = %d, want %d", ex.Total, total)
	}
	if len(ex.Lines) != RingHead+RingTail {
		t.Fatalf("kept %d lines, want %d", len(ex.Lines), RingHead+RingTail)
	}
	wantSeqs(t, "head", ex.Lines[:RingHead], 1, RingHead)
	wantSeqs(t, "tail", ex.Lines[RingHead:], total-RingTail+1, total)
	if ex.Lines[0].Text != "a1" || ex.Lines[len(ex.Lines)-1].Text != "b1200" {
		t.Errorf("first/last kept = %q/%q, want a1/b1200", ex.Lines[0].Text, ex.Lines[len(ex.Lines)-1].Text)
	}
	if want := total - RingTail - RingHead; ex.Elided != want || ex.ElidedBefore != total-RingTail+1 {
		t.Errorf("Elided = %d before #%d, want %d before #%d", ex.Elided, ex.ElidedBefore, want, total-RingTail+1)
	}
	// What the second process wrote, from its base: its first lines fell in
	// the gap, and the gap is counted from the base, not from the start.
	mine := ring.Since(second.StderrBase())
	if mine.Lines[0].Text != "b201" || mine.Elided != 200 {
		t.Errorf("Since(base): first kept %q, elided %d; want b201 and 200", mine.Lines[0].Text, mine.Elided)
	}
}
