//go:build unix

package wire

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// direct is a target run-mcp forked itself, in its own process group: what
// stays in the group is reached, what calls setsid or changes its group is
// not. It is how targets run where there is no supervisor.
type direct struct{ cmd *exec.Cmd }

func startDirect(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (*direct, error) {
	cmd := exec.Command(path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = BuildEnv(spec.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.SysProcAttr = directAttr()
	if err := spawner.Start(cmd); err != nil {
		return nil, err
	}
	return &direct{cmd: cmd}, nil
}

func (d *direct) pid() int   { return d.cmd.Process.Pid }
func (d *direct) terminate() { signalGroup(d.pid(), syscall.SIGTERM) }
func (d *direct) killAll()   { signalGroup(d.pid(), syscall.SIGKILL) }

func (d *direct) wait() Exit {
	err := d.cmd.Wait()
	if d.cmd.ProcessState != nil {
		return exitFromState(d.cmd.ProcessState, false)
	}
	return Exit{Code: -1, Signal: fmt.Sprint(err)}
}

// release kills what is left of the group (a grandchild that ignored
// SIGTERM): it must not outlive the server run-mcp started.
func (d *direct) release() { d.killAll() }

// signalGroup signals pid's process group, or pid alone if it left it.
func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig)
	}
}
