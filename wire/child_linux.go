package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// selfExe is the running binary even if it was replaced or deleted since it
// started (a rebuild of run-mcp under a live agent server).
const selfExe = "/proc/self/exe"

// superviseStartGrace bounds the wait for the supervisor's first word, which
// comes within milliseconds: it is a guard against a wedged system, not a
// timing.
const superviseStartGrace = 30 * time.Second

// directAttr is for the fallback without a supervisor: the parent-death
// signal reaches the target itself at least.
func directAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startChild starts the target under a supervisor (see internal/supervise),
// or directly where /proc is not mounted.
func startChild(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (child, error) {
	if _, err := os.Stat(selfExe); err != nil {
		return startDirect(spawner, path, spec, stdio)
	}
	return startSupervised(spawner, path, spec, stdio)
}

// supervised is a target started by its own supervisor process.
type supervised struct {
	target  int
	status  *bufio.Reader
	statusF *os.File
	control *os.File
	ctlMu   sync.Mutex
	reaped  chan struct{} // closed once the supervisor is reaped
	// clean says the supervisor exited 0 (it finished its job); read once
	// reaped is closed.
	clean bool
}

func startSupervised(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (*supervised, error) {
	if sp := supervise.TakeSpare(); sp != nil {
		if !spawner.isClosed() {
			return startSpare(sp, path, spec, stdio)
		}
		sp.Discard()
	}
	statusR, statusW, err := childPipe(false)
	if err != nil {
		return nil, fmt.Errorf("create the supervisor's status pipe: %w", err)
	}
	controlW, controlR, err := childPipe(true)
	if err != nil {
		closeAll(statusR, statusW)
		return nil, fmt.Errorf("create the supervisor's control pipe: %w", err)
	}
	exe, _ := os.Executable() // only for argv[0], which ps shows
	cmd := exec.Command(selfExe)
	cmd.Args = append([]string{filepath.Base(exe), supervise.Arg, path}, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = BuildEnv(spec.Env) // the supervisor hands its environment to the target unchanged
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	cmd.ExtraFiles = []*os.File{statusW, controlR} // fds 3 and 4: supervise.StatusFD, ControlFD
	// Its own group keeps a Ctrl-C meant for run-mcp away from it (run-mcp
	// stops the target gracefully); the parent-death signal is catchable so
	// that it can still kill everything when run-mcp is gone.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = spawner.Start(cmd)
	closeAll(statusW, controlR) // the supervisor has its own copies now
	if err != nil {
		closeAll(statusR, controlW)
		return nil, err
	}
	s := &supervised{status: bufio.NewReader(statusR), statusF: statusR, control: controlW, reaped: make(chan struct{})}
	go func() {
		s.clean = cmd.Wait() == nil
		close(s.reaped)
	}()
	return s.started(path)
}

// startSpare hands the target to a supervisor started before run-mcp knew
// it (see supervise.StartSpare), which has had the time to start meanwhile.
func startSpare(sp *supervise.Spare, path string, spec Spec, stdio [3]*os.File) (*supervised, error) {
	s := &supervised{status: bufio.NewReader(sp.Status), statusF: sp.Status, control: sp.Control, reaped: make(chan struct{})}
	// The directory was checked before the spawn (actors' checkDir), as
	// exec.Cmd's chdir would report it.
	t := supervise.Target{Path: path, Argv: append([]string{path}, spec.Args...), Env: BuildEnv(spec.Env), Dir: spec.Dir}
	// The target first: the spare starts it while the reaper is set up.
	err := sp.Hand(t, stdio)
	go s.reap(sp.Pid)
	if err != nil {
		s.abandon()
		return nil, err
	}
	return s.started(path)
}

// adoptEarly takes the target handed to the spare during run-mcp's start
// (internal/prespawn), if there is one: ok says so. It is kept only if it is
// the very target this spawn resolved (path, argv, environment, directory);
// otherwise it is stopped, and the spawn starts its own as usual (ok
// false). err is its failure to start, as a spawn's own would be.
func adoptEarly(spawner *Spawner, path string, spec Spec) (e *early, ok bool, err error) {
	sp := supervise.TakeEarly()
	if sp == nil {
		return nil, false, nil
	}
	s := &supervised{status: bufio.NewReader(sp.Status), statusF: sp.Status, control: sp.Control, reaped: make(chan struct{})}
	go s.reap(sp.Pid)
	pipes := []*os.File{sp.Stdin, sp.Stdout, sp.Stderr}
	want := supervise.Target{Path: path, Argv: append([]string{path}, spec.Args...), Env: BuildEnv(spec.Env), Dir: spec.Dir}
	if spawner.isClosed() || !sp.Target.Equal(want) {
		if _, err := s.started(path); err == nil { // else it is already gone
			s.killAll()
			s.release()
		}
		closeAll(pipes...)
		return nil, false, nil
	}
	growPipe(sp.Stderr)
	if _, err := s.started(path); err != nil {
		closeAll(pipes...)
		return nil, true, err
	}
	return &early{stdin: sp.Stdin, stdout: sp.Stdout, stderr: sp.Stderr, child: s, startedAt: sp.Handed}, true, nil
}

// reap waits for the spare supervisor, a child of this process started by
// supervise.StartSpare. It waits on the pid itself: os.FindProcess would
// first probe the kernel's pidfd support, forking a throwaway child, on the
// path between a one-shot command's start and its server's.
func (s *supervised) reap(pid int) {
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, 0, nil)
	for errors.Is(err, syscall.EINTR) {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
	}
	s.clean = err == nil && ws.Exited() && ws.ExitStatus() == 0
	close(s.reaped)
}

// started reads the supervisor's first word: the target's pid, or why it
// could not start it.
func (s *supervised) started(path string) (*supervised, error) {
	statusR := s.statusF
	_ = statusR.SetReadDeadline(time.Now().Add(superviseStartGrace))
	st, err := s.next()
	_ = statusR.SetReadDeadline(time.Time{})
	switch {
	case err == nil && st.Kind == supervise.KindPid:
		s.target = st.Number
		return s, nil
	case err == nil && st.Kind == supervise.KindError:
		err = &os.PathError{Op: "fork/exec", Path: path, Err: syscall.Errno(st.Number)}
	case err == nil:
		err = fmt.Errorf("the run-mcp supervisor said %q before starting the server; this is a bug in run-mcp, please report it", st)
	default:
		err = fmt.Errorf("the run-mcp supervisor did not start the server (%w); check that %s is runnable and retry", err, selfExe)
	}
	s.abandon()
	return nil, err
}

// next reads one status line.
func (s *supervised) next() (supervise.Status, error) {
	line, err := s.status.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("it exited without a word")
		}
		return supervise.Status{}, err
	}
	return supervise.ParseStatus(line)
}

// abandon tells the supervisor to finish and waits for it (it has nothing
// to kill when the target never started, so this is quick).
func (s *supervised) abandon() {
	closeAll(s.control)
	<-s.reaped
	closeAll(s.statusF)
}

func (s *supervised) pid() int   { return s.target }
func (s *supervised) terminate() { s.send(supervise.Terminate) }
func (s *supervised) killAll()   { s.send(supervise.KillAll) }

func (s *supervised) send(b byte) {
	s.ctlMu.Lock()
	defer s.ctlMu.Unlock()
	_, _ = s.control.Write([]byte{b}) // an error means it is gone, which is what was asked
}

// wait reads how the target ended. If the status pipe ends without saying,
// the supervisor itself was killed (kill -9 on it): the target's
// parent-death signal is SIGKILL, so that is how it ended.
func (s *supervised) wait() Exit {
	st, err := s.next()
	switch {
	case err == nil && st.Kind == supervise.KindExit:
		return Exit{Code: st.Number}
	case err == nil && st.Kind == supervise.KindSignal:
		return Exit{Code: -1, Signal: SignalName(syscall.Signal(st.Number))}
	}
	<-s.reaped
	return Exit{Code: -1, Signal: SignalName(syscall.SIGKILL)}
}

// release closes the control pipe, which the supervisor reads as "kill
// everything and exit", and waits for it to do so: for its last word, that
// nothing is left below it, or else for its end. (Its own exit, the teardown
// of a Go process, is not waited for: it holds nothing of the target's.)
func (s *supervised) release() {
	s.ctlMu.Lock()
	closeAll(s.control)
	s.ctlMu.Unlock()
	deadline := time.Now().Add(termGrace)
	_ = s.statusF.SetReadDeadline(deadline)
	if st, err := s.next(); err == nil && st.Kind == supervise.KindDone {
		closeAll(s.statusF)
		return
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-s.reaped:
		if !s.clean {
			// The supervisor did not finish its job (killed directly): what
			// is left of the target's group is still reachable from here.
			signalGroup(s.target, syscall.SIGKILL)
		}
	case <-t.C:
		// Still waiting on a process that will not die; it carries on alone
		// and exits when it is done.
	}
	closeAll(s.statusF)
}
