package supervise

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from linux/prctl.h (Linux 3.4).
const prSetChildSubreaper = 36

// From linux/wait.h, which package syscall does not carry.
const (
	pAll    = 0         // P_ALL: any child
	wNoWait = 0x1000000 // WNOWAIT: leave the child waitable
)

func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	// syscall.Exit, not os.Exit: nothing is left to flush, and a race-enabled
	// build (the test binaries) would otherwise sleep a second at exit.
	if len(os.Args) == 2 {
		syscall.Exit(runSpare())
	}
	syscall.Exit(run(Target{Path: os.Args[2], Argv: os.Args[2:], Env: os.Environ()}, [3]int{0, 1, 2}))
}

// notACommand is the message for a supervisor run by hand.
func notACommand() int {
	fmt.Fprintf(os.Stderr, "run-mcp: %s is the supervisor run-mcp starts for each server, with its pipes on fds %d and %d; "+
		"it is not a command. Run the server with `run-mcp call ... -- <command>` instead.\n", Arg, StatusFD, ControlFD)
	return 64
}

// run is the whole supervisor: it starts t on the fds stdio and watches it.
// It returns its exit code, which nobody reads: how the target ended
// travels on the status pipe.
func run(t Target, stdio [3]int) int {
	w, ok := prepare()
	if !ok {
		return notACommand()
	}
	return w.run(t, stdio)
}

// runSpare is a supervisor started before run-mcp knew its target: it gets
// ready, waits for the target on SpecFD, then runs as any other. End of
// file there (run-mcp exited, or had no use for it) ends it.
func runSpare() int {
	if !isSocket(SpecFD) {
		return notACommand()
	}
	w, ok := prepare()
	if !ok {
		return notACommand()
	}
	t, stdio, err := receive(SpecFD)
	_ = syscall.Close(SpecFD)
	if err != nil {
		return 1 // nothing was started, and run-mcp reads the status pipe's end as such
	}
	return w.run(t, stdio)
}

// watcher is a supervisor ready to start its target.
type watcher struct {
	status, control *os.File
	stop            chan os.Signal
}

// prepare does what comes before the target's start; false means the
// status and control pipes are not there (run by hand).
func prepare() (*watcher, bool) {
	// The target's parent-death signal fires when the thread that forked it
	// exits: keep the forking goroutine on its thread for the process's life.
	runtime.LockOSThread()
	if !isPipe(StatusFD) || !isPipe(ControlFD) {
		return nil, false
	}
	syscall.CloseOnExec(StatusFD) // the target must not hold run-mcp's pipes
	syscall.CloseOnExec(ControlFD)
	w := &watcher{status: os.NewFile(StatusFD, "status"), control: os.NewFile(ControlFD, "control")}
	// Orphans below us reparent to us rather than to init, so that we can
	// reap them and, at the end, kill them. Without it (a kernel before 3.4)
	// the process group is still killed.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)

	// Signals first, so a parent-death signal arriving now is not lost.
	w.stop = make(chan os.Signal, 1)
	signal.Notify(w.stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	return w, true
}

func (w *watcher) run(t Target, stdio [3]int) int {
	status, control, stop := w.status, w.control, w.stop
	pid, err := syscall.ForkExec(t.Path, t.Argv, &syscall.ProcAttr{
		Env:   t.Env, // run-mcp built it for the target: exactly the whitelist and the explicit env
		Dir:   t.Dir,
		Files: []uintptr{uintptr(stdio[0]), uintptr(stdio[1]), uintptr(stdio[2])},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if stdio[0] > 2 { // a spare's: received, and now the target's alone
		for _, fd := range stdio {
			_ = syscall.Close(fd)
		}
	}
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

	s := &supervisor{target: pid, status: status}
	go s.obey(control, stop)
	s.reapUntilAlone() // its last word is Done
	return 0
}

// isSocket tells whether fd is open on a socket, as a spare's SpecFD is.
func isSocket(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK
}

// isPipe tells whether fd is open on a pipe, as run-mcp's are. (Run by hand,
// fds 3 and 4 may well be open: Go's runtime keeps cgroup files there.)
func isPipe(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
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

// obey acts on run-mcp's control bytes and on the stop signals. End of
// file on the control pipe (run-mcp exited, however it exited) and a stop
// signal (the parent-death signal among them) both mean kill everything.
// A byte is acted on by the goroutine that read it: a hand-off to another
// would wake another thread before the target is signalled.
func (s *supervisor) obey(control io.Reader, stop <-chan os.Signal) {
	go func() {
		for range stop {
			s.act(KillAll)
		}
	}()
	buf := make([]byte, 1)
	for {
		n, err := control.Read(buf)
		if n == 1 {
			s.act(buf[0])
		}
		if err != nil {
			s.act(KillAll)
			return
		}
	}
}

// act carries out one control byte.
func (s *supervisor) act(c byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c == Terminate && !s.targetDone:
		signalGroup(s.target, syscall.SIGTERM)
	case c == KillAll:
		s.killing = true
		s.killChildren()
	}
}

// report writes status lines in one write.
func report(status io.Writer, sts ...Status) {
	if len(sts) == 0 {
		return
	}
	var b []byte
	for _, st := range sts {
		b = append(append(b, st.String()...), '\n')
	}
	_, _ = status.Write(b)
}

type supervisor struct {
	target int
	status io.Writer
	// mu is held to reap and to signal: a pid signalled under it cannot have
	// been reaped (and reused) in between, since a child stays a zombie
	// until its parent reaps it.
	mu         sync.Mutex
	targetDone bool
	killing    bool
	ended      *Status // the target's end, not reported yet
}

// reapUntilAlone reaps every child until none is left. It blocks in
// waitid(WNOWAIT), which waits for a child to end without reaping it, so
// that the reaping itself happens under mu.
func (s *supervisor) reapUntilAlone() {
	for {
		if err := waitAny(); errors.Is(err, syscall.ECHILD) {
			// The target is a child until reaped, so it is done too.
			report(s.status, Status{Kind: KindDone})
			return
		}
		s.mu.Lock()
		alone := s.reap()
		last := alone && s.targetDone
		// The target's end first; when nothing is left either (the common
		// case), both lines in one write, which run-mcp reads at once.
		var lines []Status
		if s.ended != nil {
			lines, s.ended = append(lines, *s.ended), nil
		}
		if last {
			lines = append(lines, Status{Kind: KindDone})
		}
		report(s.status, lines...)
		if s.killing && !alone {
			// What the dead left behind has reparented to us: kill it too.
			s.killChildren()
		}
		s.mu.Unlock()
		if last {
			return
		}
	}
}

// waitAny blocks until some child has ended, leaving it unreaped.
func waitAny() error {
	var info [128]byte // a siginfo_t; which child it names does not matter
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			if errno == 0 {
				return nil
			}
			return errno
		}
	}
}

// reap collects every child that has ended and notes the target's end (in
// ended, for reapUntilAlone to report); once the target is gone everything
// else is killed. It says whether no
// child is left at all (the common end: a target that started nothing).
func (s *supervisor) reap() (alone bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return errors.Is(err, syscall.ECHILD)
		}
		if pid == s.target && !s.targetDone {
			s.targetDone, s.killing = true, true
			end := Status{Kind: KindExit, Number: ws.ExitStatus()}
			if ws.Signaled() {
				end = Status{Kind: KindSignal, Number: int(ws.Signal())}
			}
			s.ended = &end
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
