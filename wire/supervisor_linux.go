package wire

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// Every wait on the supervisor has a deadline. They are guards against a
// wedged process (stopped, or stuck), far above what a healthy one takes,
// not timings: a start within milliseconds, any other answer within
// microseconds.
const (
	// startPatience bounds a start: the supervisor's own start when it is
	// the first, the exec trampoline's, and the target's execve.
	startPatience = 30 * time.Second
	// answerPatience bounds the answer to any other request. A supervisor
	// that gives none is killed: its targets die with it (their
	// parent-death signal), and run-mcp kills what is left of their
	// process groups itself.
	answerPatience = 5 * time.Second
)

// errSupervisorLost is why a request fails once the supervisor is gone.
var errSupervisorLost = errors.New("run-mcp's supervisor process is gone (killed, or stopped answering and killed); the server was stopped with it")

// supervisor is run-mcp's one supervisor process (internal/supervise) and
// the targets it runs for this Spawner.
type supervisor struct {
	pid  int
	conn *net.UnixConn
	wmu  sync.Mutex // one request at a time: a start's parts go together

	mu      sync.Mutex
	next    uint32
	waiting map[uint32]chan supervise.Event // answers awaited, by request number
	kids    map[uint32]*supervised          // targets, by id
	lostErr error

	lost     chan struct{} // closed once the supervisor is gone
	loseOnce sync.Once
	reaped   chan struct{} // closed once its process is reaped
	killMu   sync.Mutex    // held to signal its pid, never after it is reaped
	readDone chan struct{}
}

// startSupervisor starts the supervisor process and has it start first,
// its first target, whose start it sends before the process exists: the
// socket holds it, and the supervisor carries it out as its first act, so
// the target's start waits on nothing but the supervisor's own. started
// waits for that start (it sends it first if it did not fit the socket).
//
// The supervisor learns that run-mcp is gone, however it went, from end of
// file on its socket: the kernel closes run-mcp's end when run-mcp exits,
// and nothing else holds it (close-on-exec). So it has no parent-death
// signal, which would kill it before it took over its signals, and it can be
// forked from any thread.
func startSupervisor(first supervise.Target, stdio [3]*os.File) (*supervisor, func() (*supervised, error), error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, supervisorStartError(os.NewSyscallError("socketpair", err))
	}
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		closeFDs(fds[0], fds[1])
		return nil, nil, supervisorStartError(err)
	}
	s := &supervisor{waiting: map[uint32]chan supervise.Event{}, kids: map[uint32]*supervised{},
		lost: make(chan struct{}), reaped: make(chan struct{}), readDone: make(chan struct{})}
	k, req, rights := s.prepare(first, stdio)
	answer := s.expect(req.Num)
	deadline := time.Now().Add(startPatience)
	// A start that fits one message goes now; the socket's buffer, empty,
	// takes it whole or not at all (then it goes once the supervisor runs).
	sent := len(req.Payload) <= supervise.MaxPart &&
		syscall.Sendmsg(fds[0], req.Encode(), rights, nil, syscall.MSG_DONTWAIT) == nil
	// Its own process group keeps a Ctrl-C meant for run-mcp away from it
	// (run-mcp stops its targets gracefully). Its stderr is run-mcp's, for
	// the one line it writes if it must stop every server. TZ set empty
	// spares an init function the parsing of /etc/localtime.
	pid, err := syscall.ForkExec(selfExe, supervise.Command(filepath.Base(os.Args[0])), &syscall.ProcAttr{
		Env:   []string{"TZ="},
		Files: []uintptr{uintptr(null), uintptr(null), 2, uintptr(fds[1])}, // fds[1] lands on supervise.ConnFD
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	closeFDs(null, fds[1])
	if err != nil {
		closeFDs(fds[0]) // with it go the start and the fds it carried
		return nil, nil, supervisorStartError(err)
	}
	s.pid = pid
	go s.reap()
	f := os.NewFile(uintptr(fds[0]), "supervisor")
	c, err := net.FileConn(f) // a duplicate, non-blocking and in the poller
	_ = f.Close()
	if err != nil {
		close(s.readDone)
		s.kill()
		s.lose(err)
		waitFor(s.reaped, answerPatience)
		return nil, nil, supervisorStartError(err)
	}
	s.conn = c.(*net.UnixConn)
	go s.read()
	started := func() (*supervised, error) {
		if !sent {
			if err := s.sendBy(req, rights, deadline); err != nil {
				return nil, s.startFailed(k, first, supervise.Event{}, err)
			}
		}
		e, err := s.await(answer, deadline)
		if err != nil || e.Kind != supervise.EventStarted {
			return nil, s.startFailed(k, first, e, err)
		}
		return k, nil
	}
	return s, started, nil
}

func supervisorStartError(err error) error {
	return fmt.Errorf("start run-mcp's supervisor process: %w; check that %s is runnable and that the open-file limit (ulimit -n) is not exhausted", err, selfExe)
}

// reap waits for the supervisor's end. (Not os.Process: its first use
// probes pidfd support with a throwaway fork.)
func (s *supervisor) reap() {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(s.pid, &ws, 0, nil); !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	s.killMu.Lock()
	close(s.reaped)
	s.killMu.Unlock()
}

// kill sends SIGKILL to the supervisor, unless it is reaped (its pid may be
// another process's by then).
func (s *supervisor) kill() {
	s.killMu.Lock()
	defer s.killMu.Unlock()
	select {
	case <-s.reaped:
	default:
		_ = syscall.Kill(s.pid, syscall.SIGKILL)
	}
}

// read dispatches the supervisor's events until its socket ends.
func (s *supervisor) read() {
	defer close(s.readDone)
	buf := make([]byte, 2*supervise.EventSize)
	for {
		n, _, _, _, err := s.conn.ReadMsgUnix(buf, nil)
		if err == nil && n == 0 {
			err = errors.New("end of file")
		}
		var e supervise.Event
		if err == nil {
			e, err = supervise.DecodeEvent(buf[:n])
		}
		if err != nil {
			if n > 0 {
				s.kill() // a supervisor that says garbage is not to be trusted with anything
			}
			s.lose(errSupervisorLost)
			return
		}
		s.dispatch(e)
	}
}

func (s *supervisor) dispatch(e supervise.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case supervise.EventStarted, supervise.EventFailed, supervise.EventAck:
		if k := s.kids[e.Num]; k != nil && e.Kind == supervise.EventStarted {
			k.target = int(e.Value)
		}
		if ch := s.waiting[e.Num]; ch != nil {
			delete(s.waiting, e.Num)
			ch <- e
		}
	case supervise.EventExited:
		if k := s.kids[e.Num]; k != nil {
			k.ended(exitFromStatus(syscall.WaitStatus(e.Value)))
		}
	case supervise.EventEmpty:
		if k := s.kids[e.Num]; k != nil {
			k.emptied()
		}
	}
}

// isLost says the supervisor is gone: the next spawn starts another.
func (s *supervisor) isLost() bool {
	select {
	case <-s.lost:
		return true
	default:
		return false
	}
}

// lose is the end of the supervisor, however it came. Its targets were
// killed by their parent-death signal; run-mcp kills what is left of their
// process groups itself. The descendants that left them, and what a target
// that had exited already left behind, are out of its reach.
func (s *supervisor) lose(why error) {
	s.loseOnce.Do(func() {
		s.mu.Lock()
		s.lostErr = why
		kids := s.kids
		s.kids = map[uint32]*supervised{}
		var groups []int
		for _, k := range kids {
			if k.target > 0 && !k.hasEnded() {
				groups = append(groups, k.target)
			}
		}
		close(s.lost)
		s.mu.Unlock()
		supervise.KillGroups(groups)
		for _, k := range kids {
			k.ended(Exit{Code: -1, Signal: SignalName(syscall.SIGKILL)})
			k.emptied()
		}
	})
}

// wedged kills a supervisor that did not answer in time, and everything
// below it first, which it can no longer be trusted to kill; then it waits
// (bounded) for its end to be seen.
func (s *supervisor) wedged() {
	s.killMu.Lock()
	select {
	case <-s.reaped:
	default:
		_ = syscall.Kill(s.pid, syscall.SIGSTOP) // it neither forks nor reaps while run-mcp kills
		supervise.KillTree(s.pid, answerPatience)
	}
	s.killMu.Unlock()
	s.kill()
	select {
	case <-s.readDone:
	case <-time.After(answerPatience):
		_ = s.conn.Close()
		<-s.readDone
	}
	s.lose(errSupervisorLost)
}

// request sends one request and waits for its answer; a supervisor that
// does not take or answer it within patience is killed.
func (s *supervisor) request(req supervise.Request, oob []byte, patience time.Duration) (supervise.Event, error) {
	answer := s.expect(req.Num)
	if answer == nil {
		return supervise.Event{}, s.lostErr
	}
	deadline := time.Now().Add(patience)
	if err := s.sendBy(req, oob, deadline); err != nil {
		return supervise.Event{}, err
	}
	return s.await(answer, deadline)
}

// expect files the answer to request num as awaited; nil once the
// supervisor is gone.
func (s *supervisor) expect(num uint32) chan supervise.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isLost() {
		return nil
	}
	answer := make(chan supervise.Event, 1)
	s.waiting[num] = answer
	return answer
}

// sendBy sends req by deadline; a supervisor that does not take it is
// killed.
func (s *supervisor) sendBy(req supervise.Request, oob []byte, deadline time.Time) error {
	err := s.send(req, oob, deadline)
	if err == nil {
		return nil
	}
	s.mu.Lock()
	delete(s.waiting, req.Num)
	s.mu.Unlock()
	if errors.Is(err, os.ErrDeadlineExceeded) {
		s.wedged()
	} else {
		s.lose(errSupervisorLost)
	}
	return errSupervisorLost
}

// await waits for an answer expected; a supervisor that does not give it
// by deadline is killed.
func (s *supervisor) await(answer chan supervise.Event, deadline time.Time) (supervise.Event, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case e := <-answer:
		return e, nil
	case <-s.lost:
		return supervise.Event{}, errSupervisorLost
	case <-t.C:
		s.wedged()
		return supervise.Event{}, errSupervisorLost
	}
}

// send writes req, a start in parts when its Target is long; the fds in
// oob go with the last part.
func (s *supervisor) send(req supervise.Request, oob []byte, deadline time.Time) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(deadline)
	payload := req.Payload
	for {
		part := req
		part.Payload = payload
		if len(payload) > supervise.MaxPart {
			part.Kind, part.Payload = supervise.KindStartPart, payload[:supervise.MaxPart]
		}
		var rights []byte
		if part.Kind != supervise.KindStartPart {
			rights = oob
		}
		if _, _, err := s.conn.WriteMsgUnix(part.Encode(), rights, nil); err != nil {
			return err
		}
		if part.Kind != supervise.KindStartPart {
			return nil
		}
		payload = payload[supervise.MaxPart:]
	}
}

func (s *supervisor) number() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	return s.next
}

// start has the supervisor start t on stdio, whose fds it receives.
func (s *supervisor) start(t supervise.Target, stdio [3]*os.File) (*supervised, error) {
	k, req, rights := s.prepare(t, stdio)
	e, err := s.request(req, rights, startPatience)
	if err == nil && e.Kind == supervise.EventStarted {
		return k, nil // its pid was set as the answer came
	}
	return nil, s.startFailed(k, t, e, err)
}

// prepare files target k and makes the request that starts it, with its
// stdio fds to pass.
func (s *supervisor) prepare(t supervise.Target, stdio [3]*os.File) (*supervised, supervise.Request, []byte) {
	k := &supervised{sup: s, exited: make(chan struct{}), gone: make(chan struct{})}
	k.id = s.number()
	s.mu.Lock()
	s.kids[k.id] = k
	s.mu.Unlock()
	rights := syscall.UnixRights(int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd()))
	return k, supervise.Request{Kind: supervise.KindStart, Num: k.id, Payload: t.Encode()}, rights
}

// startFailed forgets k, which did not start, and says why: the errno of
// its chdir or execve (e), or the supervisor's loss (err).
func (s *supervisor) startFailed(k *supervised, t supervise.Target, e supervise.Event, err error) error {
	s.forget(k)
	if err != nil {
		return fmt.Errorf("the server could not be started: %w; retry, and if it persists report it as a bug in run-mcp", err)
	}
	return &os.PathError{Op: "fork/exec", Path: t.Path, Err: syscall.Errno(e.Value)}
}

func (s *supervisor) forget(k *supervised) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kids[k.id] == k {
		delete(s.kids, k.id)
	}
}

// ask sends a term, kill or release about target k and waits for its
// acknowledgement (an error only when the supervisor is gone).
func (s *supervisor) ask(kind byte, k *supervised) {
	_, _ = s.request(supervise.Request{Kind: kind, Num: s.number(), ID: k.id}, nil, answerPatience)
}

// tell sends a request about target k without waiting for its
// acknowledgement, which is dropped when it comes. A supervisor that does
// not take it is killed, as by ask.
func (s *supervisor) tell(kind byte, k *supervised) {
	if s.isLost() {
		return
	}
	_ = s.sendBy(supervise.Request{Kind: kind, Num: s.number(), ID: k.id}, nil, time.Now().Add(answerPatience))
}

// close ends the supervisor: end of file on its socket, after which it
// kills what is left below it (nothing, after every target was stopped),
// closes its end once nothing is, and exits. Its end of file is the answer:
// the process's own teardown goes on without run-mcp waiting for it (its
// reaper returns when it is done). A supervisor that does not answer in
// time is killed.
func (s *supervisor) close() {
	_ = s.conn.CloseWrite()
	if !waitFor(s.readDone, answerPatience) {
		s.kill()
		waitFor(s.reaped, answerPatience) // else it carries on alone, stuck in the kernel
		_ = s.conn.Close()
		<-s.readDone
	}
	_ = s.conn.Close()
	s.lose(errSupervisorLost)
}

func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = syscall.Close(fd)
		}
	}
}
