package wire

import (
	"os"
	"syscall"
	"testing"
)

// The stderr pipe is grown to hold a flood's burst (where the system allows).
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll(r, w)
	growPipe(r)
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), syscall.F_GETPIPE_SZ, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	if size < stderrPipeSize {
		t.Skipf("pipe is %d bytes: pipe-max-size is lower here", size)
	}
}
