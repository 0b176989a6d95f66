package spinread

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// These tests watch a read try and park, which only Linux's does.

// parkedRead starts a read that tries, on one P, of a pipe nothing is
// written to yet, and waits until it parks: the pipe's write end and the
// read's result come back with it.
func parkedRead(t *testing.T) (*Reader, *os.File, <-chan readResult) {
	t.Helper()
	onOneP(t)
	pr, pw := pipe(t)
	r := New(pr, NewBudget(2))
	got := readOnce(r)
	eventually(t, "the read to park", r.parked.Load)
	return r, pw, got
}

func TestExpectWakesAParkedReadThatThenGetsItsMessage(t *testing.T) {
	r, pw, got := parkedRead(t)
	r.Expect(time.Minute)
	eventually(t, "the woken read to try", func() bool { return !r.parked.Load() && r.budget.held.Load() })
	if _, err := pw.WriteString("due"); err != nil {
		t.Fatal(err)
	}
	res := <-got
	if string(res.b) != "due" || res.err != nil {
		t.Fatalf("read %q, %v; want %q and no error (the wake-up is no timeout)", res.b, res.err, "due")
	}
	if r.due() || r.budget.held.Load() {
		t.Fatal("the window and the budget are still held after what was due came")
	}
}

func TestATryEndsWithItsWindowAndTheReadParks(t *testing.T) {
	r, pw, got := parkedRead(t)
	r.Expect(20 * time.Millisecond)
	eventually(t, "the read to park again after its window", func() bool { return r.parked.Load() && !r.budget.held.Load() })
	_, _ = pw.WriteString("late")
	if res := <-got; string(res.b) != "late" || res.err != nil {
		t.Fatalf("read %q, %v; want %q", res.b, res.err, "late")
	}
}

func TestOneReaderTriesAtATime(t *testing.T) {
	onOneP(t)
	b := NewBudget(2)
	ar, aw := pipe(t)
	br, bw := pipe(t)
	a, c := New(ar, b), New(br, b)
	gotA, gotC := readOnce(a), readOnce(c)
	eventually(t, "both reads to park", func() bool { return a.parked.Load() && c.parked.Load() })
	a.Expect(time.Minute)
	eventually(t, "the first to try", func() bool { return !a.parked.Load() && b.held.Load() })
	c.Expect(time.Minute) // the budget is held: c stays parked
	time.Sleep(20 * time.Millisecond)
	if !c.parked.Load() {
		t.Fatal("a second reader left the poller while the first held the budget")
	}
	_, _ = aw.WriteString("a")
	_, _ = bw.WriteString("c")
	if res := <-gotA; string(res.b) != "a" || res.err != nil {
		t.Fatalf("first read %q, %v", res.b, res.err)
	}
	if res := <-gotC; string(res.b) != "c" || res.err != nil {
		t.Fatalf("second read %q, %v", res.b, res.err)
	}
}

func TestABlockingFileIsReadAsItIs(t *testing.T) {
	onOneP(t)
	pr, pw := pipe(t)
	rc, err := pr.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var dup int
	_ = rc.Control(func(fd uintptr) { dup, err = dupBlocking(fd) })
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(dup), "blocking")
	defer f.Close()
	r := New(f, NewBudget(2))
	if r.budget != nil {
		t.Fatal("a blocking descriptor got a budget: a raw read of it would hold a P while it waits")
	}
	r.Expect(time.Minute) // nothing to wake, nothing to try
	_, _ = pw.WriteString("plain")
	buf := make([]byte, 16)
	if n, err := r.Read(buf); string(buf[:n]) != "plain" || err != nil {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
}

// dupBlocking duplicates fd into a new descriptor in blocking mode.
func dupBlocking(fd uintptr) (int, error) {
	dup, err := syscall.Dup(int(fd))
	if err != nil {
		return 0, err
	}
	// The mode belongs to the open file, which the duplicate shares; the
	// test's pipe end is not read through the original afterwards.
	return dup, syscall.SetNonblock(dup, false)
}
