package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from linux/prctl.h (Linux 3.4).
const prSetChildSubreaper = 36

// killTick re-lists and re-kills while the supervisor empties itself, in
// case a SIGCHLD is folded into one it already handled.
const killTick = 50 * time.Millisecond

func init() {
	if len(os.Args) < 3 || os.Args[1] != Arg {
		return
	}
	// syscall.Exit, not os.Exit: nothing is left to flush, and a race-enabled
	// build (the test binaries) would otherwise sleep a second at exit.
	syscall.Exit(run(os.Args[2], os.Args[2:]))
}

// run is the whole supervisor. It returns its exit code, which nobody reads:
// how the target ended travels on the status pipe.
func run(path string, argv []string) int {
	// The target's parent-death signal fires when the thread that forked it
	// exits: keep the forking goroutine on its thread for the process's life.
	runtime.LockOSThread()
	syscall.CloseOnExec(StatusFD) // the target must not hold run-mcp's pipes
	syscall.CloseOnExec(ControlFD)
	status := os.NewFile(StatusFD, "status")
	control := os.NewFile(ControlFD, "control")
	if status == nil || control == nil {
		return 2
	}
	// Orphans below us reparent to us rather than to init, so that we can
	// reap them and, at the end, kill them. Without it (a kernel before 3.4)
	// the process group is still killed.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	// Signals first, so a parent-death signal arriving now is not lost.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)

	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(), // run-mcp built it for the target: exactly the whitelist and the explicit env
		Files: []uintptr{0, 1, 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		var errno syscall.Errno
		if !errors.As(err, &errno) {
			errno = syscall.EINVAL
		}
		report(status, Status{Kind: KindError, Number: int(errno)})
		return 1
	}
	report(status, Status{Kind: KindPid, Number: pid})
	detachStdio()

	ctl := make(chan byte, 1)
	go readControl(control, ctl)
	s := &supervisor{target: pid, status: status}
	s.loop(stop, chld, ctl)
	return 0
}

// detachStdio points the supervisor's own fds 0-2 at /dev/null: the target's
// pipes must reach end of file when the target (and what it started) is
// gone, not when the supervisor is.
func detachStdio() {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return
	}
	for fd := range 3 {
		_ = syscall.Dup3(int(null.Fd()), fd, 0)
	}
	_ = null.Close()
}

// readControl forwards run-mcp's control bytes; end of file (run-mcp exited,
// however it exited) is a KillAll.
func readControl(control io.Reader, ctl chan<- byte) {
	buf := make([]byte, 1)
	for {
		n, err := control.Read(buf)
		if n == 1 {
			ctl <- buf[0]
		}
		if err != nil {
			ctl <- KillAll
			return
		}
	}
}

func report(status io.Writer, st Status) {
	_, _ = fmt.Fprintln(status, st.String())
}

type supervisor struct {
	target     int
	status     io.Writer
	targetDone bool
	killing    bool
}

// loop reaps every child until none is left. Only this goroutine waits for
// children, so a pid it lists cannot be reused before it is killed: a child
// stays a zombie until its parent reaps it.
func (s *supervisor) loop(stop, chld <-chan os.Signal, ctl <-chan byte) {
	var tick <-chan time.Time
	for {
		if s.reap() {
			return
		}
		if s.killing {
			s.killChildren()
			if tick == nil {
				t := time.NewTicker(killTick)
				defer t.Stop()
				tick = t.C
			}
		}
		select {
		case <-chld:
		case <-tick:
		case <-stop:
			s.killing = true
		case c := <-ctl:
			switch c {
			case Terminate:
				if !s.targetDone {
					signalGroup(s.target, syscall.SIGTERM)
				}
			case KillAll:
				s.killing = true
			}
		}
	}
}

// reap collects every child that has ended and reports the target's end.
// It says whether no child is left once the target is gone.
func (s *supervisor) reap() bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return true // the target is always a child until reaped, so it is done too
		case err != nil || pid <= 0:
			return false
		}
		if pid == s.target && !s.targetDone {
			s.targetDone, s.killing = true, true
			if ws.Signaled() {
				report(s.status, Status{Kind: KindSignal, Number: int(ws.Signal())})
			} else {
				report(s.status, Status{Kind: KindExit, Number: ws.ExitStatus()})
			}
		}
	}
}

// killChildren sends SIGKILL to the target's group (while the target, which
// holds the group id, is unreaped) and to every direct child: what they
// started reparents to us when they die and is killed on the next round.
func (s *supervisor) killChildren() {
	if !s.targetDone {
		signalGroup(s.target, syscall.SIGKILL)
	}
	for _, pid := range children() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func signalGroup(pid int, sig syscall.Signal) {
	if err := syscall.Kill(-pid, sig); err != nil {
		_ = syscall.Kill(pid, sig) // it left its group
	}
}
