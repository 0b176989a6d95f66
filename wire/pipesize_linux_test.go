package wire

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A pipe run-mcp makes for a flood is grown to a megabyte, and so is a
// pipe someone else made (the agent server's stdin and stdout) that holds
// less; one already bigger is left as its maker chose.
func TestGrowPipe(t *testing.T) {
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); max < bigPipeSize {
			t.Skipf("pipe-max-size is %d here, below %d", max, bigPipeSize)
		}
	}
	r, w := pipe(t)
	growPipe(r)
	if got := pipeSize(t, r); got != bigPipeSize {
		t.Errorf("growPipe: %d bytes, want %d", got, bigPipeSize)
	}
	r, w = pipe(t)
	GrowPipe(w)
	if got := pipeSize(t, r); got != bigPipeSize {
		t.Errorf("GrowPipe on a 64 KiB pipe: %d bytes, want %d", got, bigPipeSize)
	}
	// Not a pipe: nothing happens, nothing fails.
	f, err := os.CreateTemp(t.TempDir(), "not-a-pipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	GrowPipe(f)
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		t.Errorf("GrowPipe on a file: %v, %v", st, err)
	}
}

// A pipe its maker made bigger than a megabyte keeps its size (it takes
// CAP_SYS_RESOURCE to make one).
func TestGrowPipeNeverShrinks(t *testing.T) {
	r, _ := pipe(t)
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, r.Fd(), syscall.F_SETPIPE_SZ, 2*bigPipeSize); errno != 0 {
		t.Skipf("cannot make a %d-byte pipe here (%v)", 2*bigPipeSize, errno)
	}
	GrowPipe(r)
	if got := pipeSize(t, r); got != 2*bigPipeSize {
		t.Errorf("GrowPipe on a %d-byte pipe: %d bytes, want it kept", 2*bigPipeSize, got)
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
