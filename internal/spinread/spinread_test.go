package spinread

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"
	"time"
)

// pipe returns both ends of an os.Pipe (non-blocking, in the poller),
// closed when the test ends.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

// onOneP runs the test's Go code on one P, as the agent server does, so a
// Budget made now lets its readers try.
func onOneP(t *testing.T) {
	t.Helper()
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// eventually waits up to ten seconds for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

type readResult struct {
	b   []byte
	err error
}

// readOnce reads once from r on a goroutine of its own.
func readOnce(r *Reader) <-chan readResult {
	got := make(chan readResult, 1)
	go func() {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		got <- readResult{buf[:n], err}
	}()
	return got
}

func TestItReadsWhatIsWrittenThenTheEnd(t *testing.T) {
	onOneP(t)
	pr, pw := pipe(t)
	r := New(pr, NewBudget(2))
	go func() {
		for i := range 100 {
			fmt.Fprintf(pw, "line %d\n", i)
		}
		_ = pw.Close()
	}()
	br := bufio.NewReader(r)
	for i := range 100 {
		r.Expect(Window)
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf("line %d\n", i); line != want || err != nil {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
	}
	if line, err := br.ReadString('\n'); err != io.EOF {
		t.Fatalf("after the last line: %q, %v; want EOF", line, err)
	}
}

func TestTheOwnersDeadlineEndsAReadWhateverExpectDoes(t *testing.T) {
	onOneP(t)
	pr, _ := pipe(t)
	r := New(pr, NewBudget(2))
	stop := make(chan struct{})
	kicked := make(chan struct{})
	go func() {
		defer close(kicked)
		for {
			select {
			case <-stop:
				return
			default:
				r.Expect(time.Millisecond)
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	defer func() { close(stop); <-kicked }()
	if err := r.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	done := readOnce(r)
	select {
	case res := <-done:
		if !errors.Is(res.err, os.ErrDeadlineExceeded) {
			t.Fatalf("read %q, %v; want the owner's deadline", res.b, res.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a read with a deadline 50 ms away had not returned after 10 s of wake-ups")
	}
}

func TestABudgetTriesOnlyWithACPUToSpareAndOneP(t *testing.T) {
	onOneP(t)
	if NewBudget(1).on {
		t.Error("a budget for one CPU lets readers try: the sender would wait for the CPU they hold")
	}
	if !NewBudget(2).on {
		t.Error("a budget for two CPUs on one P lets no reader try")
	}
	runtime.GOMAXPROCS(2)
	if NewBudget(2).on {
		t.Error("a budget on two Ps lets readers try: each hand-off would wake an idle runtime thread")
	}
}

func TestAStreamArrivesWholeAndInOrderUnderWakeUps(t *testing.T) {
	onOneP(t)
	pr, pw := pipe(t)
	r := New(pr, NewBudget(2))
	const lines = 20000
	go func() {
		w := bufio.NewWriterSize(pw, 256)
		for i := range lines {
			fmt.Fprintf(w, "%d\n", i)
			if i%7 == 0 {
				_ = w.Flush()
				r.Expect(Window)
			}
		}
		_ = w.Flush()
		_ = pw.Close()
	}()
	br := bufio.NewReaderSize(r, 64)
	for i := range lines {
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf("%d\n", i); line != want || err != nil {
			t.Fatalf("line %d: %q, %v; want %q", i, line, err, want)
		}
	}
	if _, err := br.ReadString('\n'); err != io.EOF {
		t.Fatalf("after the stream: %v; want EOF", err)
	}
}
