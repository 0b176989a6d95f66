//go:build !windows

package session

import "syscall"

// detachedAttr starts the session daemon in its own session, so it outlives
// the command that started it and its terminal.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// kill sends sig to pid.
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
