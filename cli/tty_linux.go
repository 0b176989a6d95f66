package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal asks the kernel for f's terminal settings: only a terminal has
// them (a pipe, a file and /dev/null do not).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
