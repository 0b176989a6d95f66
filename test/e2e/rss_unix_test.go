//go:build !windows && !darwin

package e2e

import (
	"os"
	"syscall"
)

// maxRSSKB is the peak resident memory of a finished process and its
// children; Linux reports ru_maxrss in kilobytes.
func maxRSSKB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
