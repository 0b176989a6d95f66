package targets

import (
	"testing"

	"golang.org/x/sys/unix"
)

// KillAtCleanup makes sure pid, a live process the test stopped or must
// not leave behind, is killed when the test ends, and only that process:
// the pid is held as a pidfd from now on, so a process that already ended
// by the cleanup (its pid perhaps reused by another test's process, on a
// busy machine) is left alone. Call it while pid is known to be the
// process meant.
func KillAtCleanup(tb testing.TB, pid int) {
	tb.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ENOSYS { // before Linux 5.3: by pid, as the best there is
		tb.Cleanup(func() { _ = unix.Kill(pid, unix.SIGKILL) })
		return
	}
	if err != nil {
		tb.Fatalf("cannot hold process %d to kill it at the end of the test: %v", pid, err)
	}
	tb.Cleanup(func() {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		_ = unix.Close(fd)
	})
}
