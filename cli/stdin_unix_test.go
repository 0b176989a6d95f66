//go:build unix

package cli

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// A socket, as a host written for Node hands over, is switched as a pipe
// is; one that is stdout too stays blocking, since Go's writes of stdout
// expect it so.
func TestPollableStdinTakesASocketOfItsOwn(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, host := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "host")
	defer mine.Close()
	defer host.Close()
	in := pollableStdin(mine)
	if in == mine {
		t.Fatal("a socket of stdin's own came back as it was")
	}
	defer in.Close()
	if err := in.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatalf("the agent's socket stdin takes no read deadline: %v", err)
	}
	if _, err := in.Read(make([]byte, 1)); !os.IsTimeout(err) {
		t.Fatalf("read with nothing written: %v, want a timeout", err)
	}

	fds, err = syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	both, peer := os.NewFile(uintptr(fds[0]), "stdio"), os.NewFile(uintptr(fds[1]), "host")
	defer both.Close()
	defer peer.Close()
	saved := os.Stdout
	defer func() { os.Stdout = saved }()
	os.Stdout = both // the host gave one socket for stdin and stdout
	if got := pollableStdin(both); got != both {
		t.Fatal("a socket that is stdout too was made non-blocking")
	}
	if flags, err := unix.FcntlInt(both.Fd(), unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
		t.Fatalf("the shared socket's flags: %#x, %v; want blocking", flags, err)
	}
}
