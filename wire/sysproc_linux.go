package wire

import "syscall"

// sysProcAttr puts the child in its own process group, so that stopping it
// reaches its own children too, and asks the kernel to kill it when the thread
// that forked it exits: no exit of run-mcp, kill -9 included, leaves an orphan.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
