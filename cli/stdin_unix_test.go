//go:build unix

package cli

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"
)

// A blocking pipe, as a host hands the agent server its stdin, comes back
// as a file the poller waits on (its read deadline fires); a file that is
// not a pipe comes back as it was.
func TestPollableStdin(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(p[0]), "stdin"), os.NewFile(uintptr(p[1]), "host")
	defer r.Close()
	defer w.Close()
	if err := r.SetReadDeadline(time.Now()); err == nil {
		t.Fatal("a blocking pipe took a read deadline: the test no longer starts from what a host hands over")
	}
	in := pollableStdin(r)
	if in == r {
		t.Fatal("a pipe came back as it was")
	}
	defer in.Close()
	if err := in.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatalf("the agent's stdin takes no read deadline: %v", err)
	}
	if _, err := in.Read(make([]byte, 1)); !os.IsTimeout(err) {
		t.Fatalf("read with nothing written: %v, want a timeout", err)
	}
	_ = in.SetReadDeadline(time.Time{})
	if _, err := w.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if b, err := io.ReadAll(in); err != nil || string(b) != "{}\n" {
		t.Errorf("read %q, %v; want the host's message", b, err)
	}
	// Each file owns its own descriptor: closing one leaves the other's,
	// so no finalizer can later close a number some other file reuses.
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Stat(); err != nil {
		t.Errorf("closing the pollable stdin closed the original's descriptor too: %v", err)
	}

	f, err := os.CreateTemp(t.TempDir(), "not-a-pipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := pollableStdin(f); got != f {
		t.Errorf("a regular file was replaced: %v", got)
	}
}
