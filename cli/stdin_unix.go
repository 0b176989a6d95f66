//go:build unix

package cli

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pollableStdin is the agent server's stdin as a file the runtime's poller
// waits on, when it is a pipe or a socket: a read then parks its goroutine
// instead of holding a thread (and a P) in a blocking read(2) between
// messages, which kept the runtime's monitor thread waking every 20 µs and
// handing the P to other threads while calls were streaming. With 128
// calls in flight that was 0.53x of the direct connection's throughput,
// and 0.62-0.66x without it (make bench, alternated runs). A host written
// for Node (Claude Code, the MCP Inspector, the TypeScript SDK's stdio
// transport) hands its server a socket for stdin, not a pipe.
//
// Only a pipe or a socket of stdin's own is switched: a terminal or a file
// is someone else's to keep blocking (a terminal's mode outlives run-mcp,
// and a shell would inherit it), and the read end of a pipe, or a socket a
// host made for stdin, is held by run-mcp alone (its servers get pipes of
// their own). A socket that is stdout or stderr too stays as it is: the
// mode belongs to the open file, and Go writes those two expecting them
// blocking.
//
// The file returned holds a duplicate of f's descriptor, so that each
// *os.File owns its own number (a finalizer closing the other's, once
// reused, would close some unrelated file). The two share the open file
// and its non-blocking mode: f must not be read afterwards, since a read
// outside the poller would fail with EAGAIN.
func pollableStdin(f *os.File) *os.File {
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return f
	}
	if st.Mode()&os.ModeSocket != 0 && (sameFile(st, os.Stdout) || sameFile(st, os.Stderr)) {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	dup := -1
	_ = rc.Control(func(fd uintptr) { dup, _ = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) })
	if dup < 0 {
		return f
	}
	if err := syscall.SetNonblock(dup, true); err != nil {
		_ = syscall.Close(dup)
		return f
	}
	return os.NewFile(uintptr(dup), f.Name())
}

// sameFile says f is the file st describes.
func sameFile(st os.FileInfo, f *os.File) bool {
	other, err := f.Stat()
	return err == nil && os.SameFile(st, other)
}
