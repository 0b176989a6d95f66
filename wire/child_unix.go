//go:build unix

package wire

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// direct is a target run-mcp forked itself, in its own process group: what
// stays in the group is reached, what calls setsid or changes its group is
// not. It is how targets run where there is no supervisor.
type direct struct {
	cmd     *exec.Cmd
	mu      sync.Mutex // held to signal the target's pid, never after it is reaped
	reaped  bool
	stopped chan struct{}
}

func startDirect(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (*direct, error) {
	cmd := exec.Command(path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = BuildEnv(spec.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.SysProcAttr = directAttr()
	if err := spawner.Start(cmd); err != nil {
		return nil, err
	}
	return &direct{cmd: cmd, stopped: make(chan struct{})}, nil
}

func (d *direct) pid() int                { return d.cmd.Process.Pid }
func (d *direct) terminate()              { d.signal(syscall.SIGTERM) }
func (d *direct) killAll()                { d.signal(syscall.SIGKILL) }
func (d *direct) goneCh() <-chan struct{} { return d.stopped }
func (d *direct) release()                {}
func (d *direct) serving(uint64) []int    { return nil }

// signal signals the target's process group: a target that exited may
// have left members in it, which keep its id from being reused. The target
// alone, when it left its group, only while it is unreaped.
func (d *direct) signal(sig syscall.Signal) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if syscall.Kill(-d.pid(), sig) != nil && !d.reaped {
		_ = syscall.Kill(d.pid(), sig)
	}
}

func (d *direct) wait() Exit {
	err := d.cmd.Wait()
	d.mu.Lock()
	d.reaped = true
	d.mu.Unlock()
	close(d.stopped)
	if d.cmd.ProcessState != nil {
		return exitFromState(d.cmd.ProcessState, false)
	}
	return Exit{Code: -1, Signal: fmt.Sprint(err)}
}

// exitFromStatus reads a raw wait status into an Exit.
func exitFromStatus(ws syscall.WaitStatus) Exit {
	if ws.Signaled() {
		return Exit{Code: -1, Signal: SignalName(ws.Signal())}
	}
	return Exit{Code: ws.ExitStatus()}
}

// fileInode is the inode of f's file (a pipe's, for Serving).
func fileInode(f *os.File) uint64 {
	var st syscall.Stat_t
	if f == nil || syscall.Fstat(int(f.Fd()), &st) != nil {
		return 0
	}
	return uint64(st.Ino)
}
