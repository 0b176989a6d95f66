package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// shutdownPatience bounds the supervisor's last job, killing everything
// below it once run-mcp is gone: a process the kernel will not let die
// (uninterruptible sleep) must not keep it alive for ever.
const shutdownPatience = 30 * time.Second

// server is the supervisor: the targets it started, and what each left
// behind, by the id run-mcp gave it.
type server struct {
	self int
	// mu is held to fork, to reap, to signal and to write events: a pid
	// signalled under it cannot have been reaped (and reused) in between,
	// since a child stays a zombie until its parent reaps it, and events
	// leave in the order the changes they report were made.
	mu      sync.Mutex
	records map[uint32]*record
	// byTarget are the targets not yet reaped, by pid.
	byTarget map[int]*record
	// remnants are the supervisor's children that are not targets: what a
	// target's descendants left behind reparents here. Each belongs to the
	// records it was attributed to (one, unless that was ambiguous).
	remnants map[int][]*record
	// marks are the pids a process may carry as its session or process
	// group id, each naming the records whose target or remnant had it (a
	// pid is not reused while a session or group still bears it).
	marks map[int][]*record
	// inodes are the pipes of each target's stdin, stdout and stderr.
	inodes map[uint64]*record
	// unclaimed are children no record could claim, by the round that first
	// saw them; one still unclaimed a round later is killed.
	unclaimed map[int]int
	rounds    int
	shutting  bool
	argv0     string
	// silentTimer is the next silent round, while one is armed (rearm).
	silentTimer *time.Timer
}

// record is one target run-mcp asked for.
type record struct {
	id          uint32
	pid         int
	inodes      [3]uint64
	trampolined bool // started through the exec trampoline: a subreaper itself
	alive       bool // not reaped yet
	starting    bool // the trampoline has not yet become the target
	failed      bool // the trampoline could not become the target
	exit        *syscall.WaitStatus
	remnants    map[int]bool
	killing     bool // everything of it is killed, round after round
	released    bool // forgotten once nothing of it is left
	emptied     bool // EventEmpty was sent since it last had something left
}

// serve is the supervisor's life. Its main goroutine reads run-mcp's
// requests and forks every target, locked to its thread for the process's
// life: a target's parent-death signal fires when the thread that forked it
// exits.
func serve() int {
	runtime.LockOSThread()
	if !isSocket(ConnFD) {
		return notACommand()
	}
	syscall.CloseOnExec(ConnFD) // no target may hold run-mcp's socket
	becomeSubreaper()
	dropTerminal()
	s := &server{self: os.Getpid(), records: map[uint32]*record{}, byTarget: map[int]*record{},
		remnants: map[int][]*record{}, marks: map[int][]*record{}, inodes: map[uint64]*record{},
		unclaimed: map[int]int{}, argv0: filepath.Base(os.Args[0])}
	s.loop(s.watch)
	return s.shutdown()
}

// watch takes over the signals and starts the rounds that do not wait for
// a request. It runs once the first request is carried out: run-mcp sends
// the start of its first target before the supervisor runs, so that target
// starts as soon as the supervisor can read, the signals' setup (the
// runtime's signal thread, a round trip to it per signal) coming after it.
// Nothing is lost meanwhile: run-mcp's end is end of file on the socket,
// which waits to be read, and a child that ended before SIGCHLD was watched
// is reaped by the round that follows at once.
func (s *server) watch() {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		s.round()
		for range chld {
			s.round()
		}
	}()
	go func() {
		<-stop
		s.shutdown()
	}()
}

// loop carries out run-mcp's requests until its socket reaches end of file:
// run-mcp exited, however it exited, or closed its Spawner. first runs once
// the first whole request is carried out.
func (s *server) loop(first func()) {
	buf := make([]byte, requestHeader+MaxPart)
	oob := make([]byte, syscall.CmsgSpace(3*4))
	var parts []byte // a start's Target so far
	for {
		n, oobn, flags, _, err := syscall.Recvmsg(ConnFD, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		fds := rightsIn(oob[:oobn])
		req, err := DecodeRequest(buf[:n])
		if err == nil && flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
			err = errors.New("run-mcp sent the supervisor a message longer than any request")
		}
		if err != nil {
			closeFDs(fds...)
			fmt.Fprintf(os.Stderr, "run-mcp: %v; the supervisor stops every server (this is a bug in run-mcp, please report it)\n", err)
			return
		}
		switch req.Kind {
		case KindStartPart:
			closeFDs(fds...)
			parts = append(parts, req.Payload...)
			continue
		case KindStart:
			whole := append(parts, req.Payload...)
			parts = nil
			s.start(req.Num, whole, fds)
		default:
			closeFDs(fds...)
			s.act(req)
		}
		if first != nil {
			first()
			first = nil
		}
	}
}

// rightsIn reads the fds a message carried.
func rightsIn(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// send writes one event. An error means run-mcp is gone, which end of file
// on the socket tells the loop: nothing to do here.
func (s *server) send(kind byte, num uint32, value int64) {
	b := Event{Kind: kind, Num: num, Value: value}.Encode()
	for {
		err := syscall.Sendmsg(ConnFD, b, nil, nil, syscall.MSG_NOSIGNAL)
		if !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// act carries out a term, kill or release, then acknowledges it. A target
// the supervisor no longer knows has nothing left: done already.
func (s *server) act(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.silent() {
		s.settle() // orphans that arrived unannounced go to their own first
	}
	if r := s.records[req.ID]; r != nil {
		switch req.Kind {
		case KindTerm:
			s.terminate(r)
		case KindKill, KindRelease:
			r.killing = true
			r.released = r.released || req.Kind == KindRelease
			s.sweep(r)
			s.checkEmpty(r)
		}
	}
	s.rearm()
	s.send(EventAck, req.Num, 0)
}

// terminate asks target r to stop: SIGTERM to its process group while it
// lives; once it has exited (a launcher), to what it left behind.
func (s *server) terminate(r *record) {
	if r.alive {
		if syscall.Kill(-r.pid, syscall.SIGTERM) != nil {
			_ = syscall.Kill(r.pid, syscall.SIGTERM)
		}
		return
	}
	for pid := range r.remnants {
		// A group is signalled only when this remnant is in it, so that the
		// group exists and its id is not a reused pid.
		if st, ok := readStat(pid); ok && (st.pgid == pid || st.pgid == r.pid) {
			_ = syscall.Kill(-st.pgid, syscall.SIGTERM)
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}

// silentEvery is how often the supervisor looks for orphans that reached it
// with no SIGCHLD to tell (see settle), while any may (unsettled).
const silentEvery = time.Second

// rearm arms the next silent round when one may find something, unless one
// is armed already: a supervisor with nothing unsettled does not wake up.
// Called with mu held, after anything that may unsettle it.
func (s *server) rearm() {
	if s.silentTimer == nil && !s.shutting && s.unsettled() {
		s.silentTimer = time.AfterFunc(silentEvery, s.silentRound)
	}
}

func (s *server) silentRound() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silentTimer = nil
	if !s.shutting && s.unsettled() {
		s.settle() // which arms the next, if still unsettled
	}
}

// unsettled says a round may find something no SIGCHLD announced: an
// orphan that arrived silently (silent), one found but not yet attributed,
// or a record being killed, which is swept again each round until nothing
// of it is left. A lone target's orphans need no look of their own: its
// end's SIGCHLD brings a round that finds them, before anything is killed.
func (s *server) unsettled() bool {
	if len(s.unclaimed) > 0 || s.silent() {
		return true
	}
	for _, r := range s.records {
		if r.killing {
			return true
		}
	}
	return false
}

// shutdown kills everything below the supervisor, round after round until
// nothing is left, and exits. It keeps mu for good: nothing else runs.
//
// Between rounds it looks again every shutdownTick rather than waiting for
// a child to end: an orphan that reached it after a round (its parent, not
// the supervisor's child, died meanwhile) ends nothing by itself.
func (s *server) shutdown() int {
	s.mu.Lock()
	s.shutting = true
	deadline := time.Now().Add(shutdownPatience)
	for time.Now().Before(deadline) {
		if reapAll(func(int, syscall.WaitStatus) {}) {
			// No child left, so nothing below (an orphan reparents here
			// before its dead parent can be reaped): the common end, after
			// every target was released. The socket's end of file tells
			// run-mcp at once, which need not wait for this process's own
			// teardown.
			_ = syscall.Close(ConnFD)
			return exit(0)
		}
		for _, pid := range descendants(s.self) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(shutdownTick)
	}
	return exit(1)
}

// shutdownTick is how often a shutdown looks for what is left.
const shutdownTick = 5 * time.Millisecond
