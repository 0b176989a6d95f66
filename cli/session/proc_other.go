//go:build !linux && !windows

package session

import (
	"errors"
	"syscall"
)

// procStart says whether pid is a live process; its start time is not read
// here (0), so liveness rests on the pid and the socket file.
func procStart(pid int) (uint64, bool) {
	if pid <= 0 {
		return 0, false
	}
	err := syscall.Kill(pid, 0)
	return 0, err == nil || errors.Is(err, syscall.EPERM)
}

// Stopped says pid is stopped by a signal or a debugger; only Linux can tell
// (its /proc), so here it never is.
func Stopped(int) bool { return false }
