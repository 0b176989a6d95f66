//go:build !windows

package daemon

import (
	"syscall"
	"unsafe"
)

// setNofile sets another process's RLIMIT_NOFILE (soft and hard) with
// prlimit(2) and returns the soft limit it had.
func setNofile(pid int, n uint64) (uint64, error) {
	var old syscall.Rlimit
	cur := syscall.Rlimit{}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_NOFILE, 0, uintptr(unsafe.Pointer(&cur)), 0, 0); e != 0 {
		return 0, e
	}
	lim := syscall.Rlimit{Cur: n, Max: cur.Max}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_NOFILE, uintptr(unsafe.Pointer(&lim)), uintptr(unsafe.Pointer(&old)), 0, 0); e != 0 {
		return 0, e
	}
	return old.Cur, nil
}
