package wire

import (
	"os"
	"syscall"
)

// bigPipeSize is the capacity asked for the pipe that carries floods, the
// target's stderr (the unprivileged maximum by default). A writer then has a megabyte of slack
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
