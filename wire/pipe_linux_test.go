package wire

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The end kept is polled (its deadlines work, as os.Pipe's do) and the
// child's end is blocking, as a child expects its stdio; bytes pass from
// one to the other both ways round.
func TestChildPipeEnds(t *testing.T) {
	for _, childReads := range []bool{true, false} {
		mine, theirs, err := childPipe(childReads)
		if err != nil {
			t.Fatal(err)
		}
		if got := nonblocking(t, theirs); got {
			t.Errorf("childReads=%v: the child's end is non-blocking", childReads)
		}
		if got := nonblocking(t, mine); !got {
			t.Errorf("childReads=%v: the end kept is blocking", childReads)
		}
		w, r := mine, theirs
		if !childReads {
			w, r = theirs, mine
			// A read with nothing written ends at its deadline, not never.
			_ = mine.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			if _, err := mine.Read(make([]byte, 1)); !os.IsTimeout(err) {
				t.Errorf("read on the end kept, nothing written: %v, want a timeout", err)
			}
			_ = mine.SetReadDeadline(time.Time{})
		}
		if _, err := w.Write([]byte("x\n")); err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		b, err := io.ReadAll(r)
		if err != nil || string(b) != "x\n" {
			t.Errorf("childReads=%v: read %q, %v", childReads, b, err)
		}
		_ = r.Close()
	}
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	_ = rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, syscall.F_GETFL, 0) })
	if err != nil {
		t.Fatal(err)
	}
	return flags&syscall.O_NONBLOCK != 0
}
