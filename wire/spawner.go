package wire

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
)

// ErrSpawnerClosed is returned by Start after Close.
var ErrSpawnerClosed = errors.New("run-mcp is shutting down: no new server processes are started")

// Spawner starts the targets of one run-mcp engine (a Registry owns one).
// On Linux it runs them all under one supervisor process, started by the
// first spawn; elsewhere it starts them itself.
//
// Every child run-mcp forks with a parent-death signal (a target started
// directly) is forked from one goroutine locked to its OS thread for the
// Spawner's life. Linux delivers the parent-death signal when the thread
// that forked a child exits (Go issue 27505), and the Go runtime retires
// idle threads: forking from an arbitrary goroutine could kill a healthy
// child the moment its thread is retired. The supervisor has no such signal
// (end of file on its socket tells it run-mcp is gone), so it is forked by
// the spawn that needs it.
type Spawner struct {
	calls   chan func()
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	closed  bool
	started bool // the forking goroutine runs: started by the first call
	plat    platformSpawner
}

// NewSpawner returns a Spawner; its forking goroutine, or on Linux its
// supervisor, start with the first spawn, so that one that never
// starts a child costs nothing. Close it after every child it started has
// been stopped.
func NewSpawner() *Spawner {
	return &Spawner{calls: make(chan func()), done: make(chan struct{})}
}

func (s *Spawner) loop() {
	// Never unlocked: when this goroutine returns, the thread goes with it,
	// which is only safe once every child it forked is gone (Close's contract).
	runtime.LockOSThread()
	defer close(s.done)
	for f := range s.calls {
		f()
	}
}

// isClosed says Close has begun: no new child is started.
func (s *Spawner) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// onThread runs f on the locked thread and waits for it.
func (s *Spawner) onThread(f func()) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrSpawnerClosed
	}
	if !s.started {
		s.started = true
		go s.loop()
	}
	ran := make(chan struct{})
	s.calls <- func() { f(); close(ran) }
	s.mu.Unlock()
	<-ran
	return nil
}

// Start starts cmd on the locked thread.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	var err error
	if cerr := s.onThread(func() { err = cmd.Start() }); cerr != nil {
		return cerr
	}
	return err
}

// Close ends the supervisor (on Linux), then stops the forking goroutine and
// waits for both: for the supervisor, until it says nothing is left below
// it (its process then exits on its own). Every wait is bounded.
func (s *Spawner) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.plat.close()
		s.mu.Lock()
		close(s.calls)
		started := s.started
		s.mu.Unlock()
		if started {
			<-s.done
		}
	})
}
