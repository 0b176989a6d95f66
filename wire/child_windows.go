package wire

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// direct is a target run-mcp started itself. Windows has no process groups
// in the POSIX sense and no signal to ask a process to stop: terminate does
// nothing (the closed stdin is the request, and termGrace the wait), killAll
// ends the target alone (TerminateProcess), and what it started is out of
// reach (a job object would be the way; run-mcp does not use one yet).
type direct struct {
	cmd     *exec.Cmd
	stopped chan struct{}
}

func startChild(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (child, error) {
	cmd := exec.Command(path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = BuildEnv(spec.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	if err := spawner.Start(cmd); err != nil {
		return nil, err
	}
	return &direct{cmd: cmd, stopped: make(chan struct{})}, nil
}

func (d *direct) pid() int                { return d.cmd.Process.Pid }
func (d *direct) terminate()              {}
func (d *direct) killAll()                { _ = d.cmd.Process.Kill() }
func (d *direct) release()                {}
func (d *direct) goneCh() <-chan struct{} { return d.stopped }
func (d *direct) serving(uint64) []int    { return nil }

func (d *direct) wait() Exit {
	err := d.cmd.Wait()
	close(d.stopped)
	if d.cmd.ProcessState != nil {
		return exitFromState(d.cmd.ProcessState, false)
	}
	return Exit{Code: -1, Signal: fmt.Sprint(err)}
}

// fileInode: Windows pipes have no inode run-mcp could look for.
func fileInode(*os.File) uint64 { return 0 }

// platformSignalNames: Windows defines only the common signals.
func platformSignalNames() map[syscall.Signal]string { return nil }
