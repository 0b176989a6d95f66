package e2e

import (
	"os"
	"syscall"
)

// maxRSSKB is the peak resident memory of a finished process and its
// children; macOS reports ru_maxrss in bytes.
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) >> 10
	}
	return 0
}
