package targets

import (
	"os"
	"testing"
)

// KillAtCleanup makes sure pid, a live process the test stopped or must
// not leave behind, is killed when the test ends, and only that process.
// Call it while pid is known to be the process meant: os.FindProcess holds
// it from then on (a pidfd on Linux, a handle on Windows), so a process
// that ended before the cleanup, its pid perhaps reused by another test's
// process on a busy machine, is left alone.
func KillAtCleanup(tb testing.TB, pid int) {
	tb.Helper()
	p, err := os.FindProcess(pid)
	if err != nil {
		tb.Fatalf("cannot hold process %d to kill it at the end of the test: %v", pid, err)
	}
	tb.Cleanup(func() {
		_ = p.Kill()
		_ = p.Release()
	})
}
