package wire

import "syscall"

// sysProcAttr: Windows has no process groups to join in the Unix sense; a
// stop reaches the server itself (Stop falls back to killing its process).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
