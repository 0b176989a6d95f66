package supervise

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// A spare is a supervisor started while run-mcp itself is still starting,
// before it knows what it will run: its own start (a Go runtime over a large
// binary, some milliseconds) then overlaps run-mcp's instead of delaying the
// target's. StartSpare starts one from an init function; the first spawn
// takes it (TakeSpare) and hands it its target (Hand). One that is never
// taken reads end of file on SpecFD when run-mcp exits, and exits too.

// spare is the handoff from the init function that started a spare to the
// first spawn: process-wide because the process's start is. It holds at
// most one spare, which is taken once; ready is closed once the spare is
// started (or failed to start).
var spare struct {
	mu    sync.Mutex
	ready chan struct{}
	s     *Spare
	early *Early // instead of s when the spare was handed its target at once
}

// Early is a spare that was handed its target as soon as it was started,
// while run-mcp itself was still starting (internal/prespawn decides when:
// a command line whose target is certain before any of run-mcp's own
// parsing). The first spawn takes it (TakeEarly) and keeps it only if it is
// the very target that spawn was about to start.
type Early struct {
	*Spare
	Target Target
	// Our ends of the target's stdin (write), stdout and stderr (read),
	// non-blocking, as a spawn's own pipes are.
	Stdin, Stdout, Stderr *os.File
	// Handed is when the target was handed over.
	Handed time.Time
}

// Spare is a supervisor waiting for its target.
type Spare struct {
	Pid     int
	Status  *os.File // the read end of its status pipe (StatusFD)
	Control *os.File // the write end of its control pipe (ControlFD)
	spec    int      // our end of its SpecFD socket
}

// StartSpare starts a spare supervisor, once, without waiting for it: the
// fork and exec run on a goroutine of their own, whose thread is kept for
// the process's life (the parent-death signal follows the forking thread,
// and the Go runtime ends a locked thread whose goroutine returns). Any
// failure is silent: the spawn then starts a supervisor of its own, as
// without a spare.
//
// With early set, the spare is handed that target as soon as it is started,
// on new pipes, and TakeEarly has it instead of TakeSpare.
func StartSpare(early *Target) {
	spare.mu.Lock()
	defer spare.mu.Unlock()
	if spare.ready != nil {
		return
	}
	ready := make(chan struct{})
	spare.ready = ready
	go func() {
		runtime.LockOSThread() // never unlocked: see above
		s, err := startSpare()
		var e *Early
		if err == nil && early != nil {
			// A failed hand-off discards the spare: nothing to take, and
			// the spawn starts a supervisor of its own.
			e, _ = s.handEarly(*early)
			s = nil
		}
		spare.mu.Lock()
		if err == nil {
			spare.s, spare.early = s, e
		}
		spare.mu.Unlock()
		close(ready)
		select {} // keeps the thread that forked the spare
	}()
}

// handEarly hands s its target at once, on three new pipes.
func (s *Spare) handEarly(t Target) (*Early, error) {
	in, out, errp := [2]int{-1, -1}, [2]int{-1, -1}, [2]int{-1, -1} // -1: not made, nothing to close
	for _, p := range []*[2]int{&in, &out, &errp} {
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			closeFDs(in[0], in[1], out[0], out[1], errp[0], errp[1])
			s.Discard()
			return nil, err
		}
	}
	// The target's ends go to it; ours are non-blocking, for the poller.
	err := s.handFDs(t, [3]int{in[0], out[1], errp[1]})
	closeFDs(in[0], out[1], errp[1])
	if err != nil {
		closeFDs(in[1], out[0], errp[0])
		s.Discard()
		return nil, err
	}
	for _, fd := range []int{in[1], out[0], errp[0]} {
		_ = syscall.SetNonblock(fd, true)
	}
	return &Early{Spare: s, Target: t, Handed: time.Now(),
		Stdin: os.NewFile(uintptr(in[1]), "|1"), Stdout: os.NewFile(uintptr(out[0]), "|0"), Stderr: os.NewFile(uintptr(errp[0]), "|0")}, nil
}

// TakeEarly returns the spare handed its target early, once; nil when there
// is none. It waits for a spare still being started.
func TakeEarly() *Early {
	if !awaitSpare() {
		return nil
	}
	spare.mu.Lock()
	defer spare.mu.Unlock()
	e := spare.early
	spare.early = nil
	return e
}

func startSpare() (*Spare, error) {
	var status, control [2]int
	if err := syscall.Pipe2(status[:], syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	if err := syscall.Pipe2(control[:], syscall.O_CLOEXEC); err != nil {
		closeFDs(status[0], status[1])
		return nil, err
	}
	spec, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		closeFDs(status[0], status[1], control[0], control[1])
		return nil, err
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		closeFDs(status[0], status[1], control[0], control[1], spec[0], spec[1])
		return nil, err
	}
	// Its own group keeps a Ctrl-C meant for run-mcp away from it; the
	// parent-death signal is caught once it runs a target, so that it can
	// kill everything when run-mcp is gone. No environment (its target's
	// comes with the target) but TZ set empty: the local time zone is then
	// UTC, not /etc/localtime read and parsed by an init function
	// (BurntSushi/toml's), a few tenths of a millisecond of the spare's
	// start that a one-shot command would wait on.
	pid, err := syscall.ForkExec("/proc/self/exe", []string{filepath.Base(os.Args[0]), Arg}, &syscall.ProcAttr{
		Env:   []string{"TZ="},
		Files: []uintptr{uintptr(null), uintptr(null), uintptr(null), uintptr(status[1]), uintptr(control[0]), uintptr(spec[1])},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM},
	})
	closeFDs(null, status[1], control[0], spec[1]) // the spare has its own copies
	if err != nil {
		closeFDs(status[0], control[1], spec[0])
		return nil, err
	}
	// Our ends go to the poller, for read deadlines and no blocked threads.
	_ = syscall.SetNonblock(status[0], true)
	_ = syscall.SetNonblock(control[1], true)
	return &Spare{Pid: pid, Status: os.NewFile(uintptr(status[0]), "supervisor status"),
		Control: os.NewFile(uintptr(control[1]), "supervisor control"), spec: spec[0]}, nil
}

// TakeSpare returns the waiting spare, once; nil when there is none. It
// waits for a spare still being started.
func TakeSpare() *Spare {
	if !awaitSpare() {
		return nil
	}
	spare.mu.Lock()
	defer spare.mu.Unlock()
	s := spare.s
	spare.s = nil
	return s
}

// awaitSpare waits for the spare being started, if one is; false when none
// was ever started.
func awaitSpare() bool {
	spare.mu.Lock()
	ready := spare.ready
	spare.mu.Unlock()
	if ready == nil {
		return false
	}
	<-ready
	return true
}

// Hand sends the spare its target and the target's stdin, stdout and
// stderr; the spare then starts it and reports as any supervisor does.
// Either way the spec socket is closed: a spare runs one target at most.
func (s *Spare) Hand(t Target, stdio [3]*os.File) error {
	return s.handFDs(t, [3]int{int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd())})
}

func (s *Spare) handFDs(t Target, stdio [3]int) error {
	defer func() {
		closeFDs(s.spec)
		s.spec = -1 // closed: a later Discard must not close whatever reuses the number
	}()
	msg := t.Encode()
	rights := syscall.UnixRights(stdio[0], stdio[1], stdio[2])
	n, err := retry(func() (int, error) { return syscall.SendmsgN(s.spec, msg, rights, nil, 0) })
	for err == nil && n < len(msg) {
		var m int
		m, err = retry(func() (int, error) { return syscall.Write(s.spec, msg[n:]) })
		n += m
	}
	if err != nil {
		return fmt.Errorf("hand the server to run-mcp's supervisor: %w", err)
	}
	return nil
}

// Discard ends a spare that will not be used; it exits once it reads end
// of file on SpecFD.
func (s *Spare) Discard() {
	closeFDs(s.spec)
	_ = s.Status.Close()
	_ = s.Control.Close()
	go func() { // no zombie while run-mcp lives on
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(s.Pid, &ws, 0, nil); !errors.Is(err, syscall.EINTR) {
				return
			}
		}
	}()
}

// receive is the spare's side of Hand: the target and its three fds.
func receive(fd int) (Target, [3]int, error) {
	none := [3]int{-1, -1, -1}
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	var n, oobn int
	_, err := retry(func() (int, error) {
		var err error
		n, oobn, _, _, err = syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return n, err
	})
	if err != nil {
		return Target{}, none, err
	}
	stdio, err := rightsIn(oob[:oobn])
	if err != nil {
		return Target{}, none, err
	}
	fail := func(err error) (Target, [3]int, error) {
		closeFDs(stdio[:]...)
		return Target{}, none, err
	}
	body := buf[:n]
	for len(body) < 4 {
		if body, err = readMore(fd, body); err != nil {
			return fail(err)
		}
	}
	size, err := targetLen(body[:4])
	if err != nil {
		return fail(err)
	}
	for len(body) < 4+size {
		if body, err = readMore(fd, body); err != nil {
			return fail(err)
		}
	}
	t, err := DecodeTarget(body[4 : 4+size])
	if err != nil {
		return fail(err)
	}
	return t, stdio, nil
}

// rightsIn reads exactly three fds from a control message.
func rightsIn(oob []byte) ([3]int, error) {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return [3]int{}, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := syscall.ParseUnixRights(&m)
		if err != nil {
			continue
		}
		fds = append(fds, got...)
	}
	if len(fds) != 3 {
		closeFDs(fds...)
		return [3]int{}, fmt.Errorf("the spare supervisor was sent %d fds, not the target's 3", len(fds))
	}
	return [3]int{fds[0], fds[1], fds[2]}, nil
}

func readMore(fd int, body []byte) ([]byte, error) {
	chunk := make([]byte, 64<<10)
	n, err := retry(func() (int, error) { return syscall.Read(fd, chunk) })
	if err != nil {
		return body, err
	}
	if n == 0 {
		return body, errors.New("the spare supervisor's target was cut short")
	}
	return append(body, chunk[:n]...), nil
}

// retry repeats a system call interrupted by a signal.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return n, err
		}
	}
}

func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = syscall.Close(fd)
		}
	}
}
