//go:build !windows

package wire

import "syscall"

// killGroup signals the process group the server leads (it was started with
// Setpgid), so its own children stop with it.
func killGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// platformSignalName names the signals that only Unix has.
func platformSignalName(s syscall.Signal) (string, bool) {
	switch s {
	case syscall.SIGUSR1:
		return "SIGUSR1", true
	case syscall.SIGUSR2:
		return "SIGUSR2", true
	}
	return "", false
}
