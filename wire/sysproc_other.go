//go:build !linux && !windows

package wire

import "syscall"

// sysProcAttr puts the child in its own process group. Platforms without a
// parent-death signal rely on Stop and on run-mcp's signal handling.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
