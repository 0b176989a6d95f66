package wire

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The pipe run-mcp makes for a target's stderr flood is grown to a megabyte.
func TestGrowPipe(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max < bigPipeSize {
			t.Skipf("pipe-max-size is %d here, below %d", max, bigPipeSize)
		}
	}
	r, _ := pipe(t)
	growPipe(r)
	if got := pipeSize(t, r); got != bigPipeSize {
		t.Errorf("growPipe: %d bytes, want %d", got, bigPipeSize)
	}
}

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(r, w) })
	return r, w
}

func pipeSize(t *testing.T, f *os.File) int {
	t.Helper()
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETPIPE_SZ, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	return int(size)
}
