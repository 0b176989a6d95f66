//go:build unix && !linux

package wire

import (
	"os"
	"syscall"
)

// startChild forks the target directly in its own process group: these
// platforms have neither a child subreaper nor a parent-death signal, so a
// kill -9 of run-mcp leaves the target to notice its closed stdin, and a
// descendant that left the group is out of reach.
func startChild(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (child, error) {
	return startDirect(spawner, path, spec, stdio)
}

func directAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
