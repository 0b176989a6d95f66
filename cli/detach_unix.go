//go:build !windows

package cli

import "syscall"

// detachedAttr starts the session daemon in its own session, so it outlives
// this command and its terminal.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// processGone tells whether no process has this pid (signal 0 probes it).
func processGone(pid int) bool {
	return syscall.Kill(pid, 0) == syscall.ESRCH
}
