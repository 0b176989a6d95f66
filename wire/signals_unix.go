//go:build unix

package wire

import "syscall"

// platformSignalNames names the signals Windows does not define.
func platformSignalNames() map[syscall.Signal]string {
	return map[syscall.Signal]string{syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2"}
}
