package wire

import (
	"os"
	"syscall"
)

// stderrPipeSize is the capacity asked for the target's stderr pipe (the
// unprivileged maximum by default). A target that floods stderr then
// writes into a megabyte of slack instead of 64 KiB, so it is not held up
// while the drain works, and each read takes many lines at once.
const stderrPipeSize = 1 << 20

// growPipe enlarges a pipe; a refusal (a lower pipe-max-size) leaves it as
// it was, which only costs speed.
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, stderrPipeSize)
	})
}
