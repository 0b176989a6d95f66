//go:build unix

package cli

import (
	"os"
	"syscall"
)

// pollableStdin is the agent server's stdin as a file the runtime's poller
// waits on, when it is a pipe: a read then parks its goroutine instead of
// holding a thread (and a P) in a blocking read(2) between messages, which
// kept the runtime's monitor thread waking every 20 µs and handing the P
// to other threads while calls were streaming. With 128 calls in flight
// that was 0.53x of the direct connection's throughput, and 0.62-0.66x
// without it (make bench, alternated runs).
//
// Only a pipe is switched: a terminal or a file is someone else's to keep
// blocking (a terminal's mode outlives run-mcp, and a shell would inherit
// it), and the read end of a pipe is held by run-mcp alone (its servers get
// pipes of their own). f itself is not used afterwards: reading it in
// non-blocking mode outside the poller would fail with EAGAIN.
func pollableStdin(f *os.File) *os.File {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
	fd := int(f.Fd()) // Fd leaves it blocking: it is not in the poller
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
