package wire

import (
	"os"
	"syscall"
)

// bigPipeSize is the capacity asked for the pipes that carry floods: the
// target's stderr, and the agent server's own stdin and stdout (the
// unprivileged maximum by default). A writer then has a megabyte of slack
// instead of 64 KiB, so it is not held up while the reader waits for a CPU,
// and each read takes many lines at once.
const bigPipeSize = 1 << 20

// growPipe enlarges a pipe; a refusal (a lower pipe-max-size) leaves it as
// it was, which only costs speed.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, bigPipeSize)
	})
}

// GrowPipe enlarges f to a megabyte if it is a pipe with less, as growPipe
// does for the pipes run-mcp makes. For a pipe someone else made (the
// agent server's stdin and stdout, made by its host) it only ever grows it:
// a host that chose a bigger buffer keeps it. Anything not a pipe, or a
// refusal, is left as it was.
func GrowPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETPIPE_SZ, 0)
		if errno != 0 || int(size) >= bigPipeSize {
			return // not a pipe, or big enough
		}
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, bigPipeSize)
	})
}
