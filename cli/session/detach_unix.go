//go:build !windows

package session

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// detachedAttr starts the session daemon in its own session, so it outlives
// the command that started it and its terminal.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// kill sends sig to pid (signal has checked that pid is still the recorded
// process).
func kill(pid int, _ uint64, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// stopSteps are what stopProc tries, gentlest first, with the names its
// report gives them.
func stopSteps() []stopStep {
	return []stopStep{{syscall.SIGTERM, "SIGTERM"}, {syscall.SIGKILL, "SIGKILL"}}
}

// byHand is the command a person runs to stop pid when run-mcp could not.
func byHand(pid int) string { return fmt.Sprintf("kill -9 %d", pid) }

// passStatus hands the child the status pipe's write end as fd 3.
func passStatus(c *exec.Cmd, w *os.File) { c.ExtraFiles = []*os.File{w} }

// StatusFile is the daemon's end of its status pipe (fd 3, see passStatus).
func StatusFile() *os.File { return os.NewFile(3, "status") }
