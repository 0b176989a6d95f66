package wire

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
)

// ErrSpawnerClosed is returned by Start after Close.
var ErrSpawnerClosed = errors.New("run-mcp is shutting down: no new server processes are started")

// Spawner forks every child from one goroutine locked to its OS thread for
// the Spawner's life. Linux delivers the parent-death signal when the thread
// that forked a child exits (Go issue 27505), and the Go runtime retires idle
// threads: forking from an arbitrary goroutine could kill a healthy child the
// moment its thread is retired.
type Spawner struct {
	requests chan spawnRequest
	done     chan struct{}
	once     sync.Once
	mu       sync.Mutex
	closed   bool
	started  bool // the forking goroutine runs: started by the first Start
}

type spawnRequest struct {
	cmd   *exec.Cmd
	reply chan error
}

// NewSpawner returns a Spawner; its forking goroutine starts with the first
// Start, so that one that never starts a child (a one-shot command, whose
// server a spare supervisor starts) costs no thread, at its start or at its
// Close. Close it after every child it started has been stopped.
func NewSpawner() *Spawner {
	return &Spawner{requests: make(chan spawnRequest), done: make(chan struct{})}
}

func (s *Spawner) loop() {
	// Never unlocked: when this goroutine returns, the thread goes with it,
	// which is only safe once every child it forked is gone (Close's contract).
	runtime.LockOSThread()
	defer close(s.done)
	for req := range s.requests {
		req.reply <- req.cmd.Start()
	}
}

// Start starts cmd on the locked thread.
func (s *Spawner) Start(cmd *exec.Cmd) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrSpawnerClosed
	}
	if !s.started {
		s.started = true
		go s.loop()
	}
	reply := make(chan error, 1)
	s.requests <- spawnRequest{cmd: cmd, reply: reply}
	s.mu.Unlock()
	return <-reply
}

// isClosed says Close was called: no new server starts.
func (s *Spawner) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close stops the forking goroutine and waits for it.
func (s *Spawner) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.requests)
		started := s.started
		s.mu.Unlock()
		if started {
			<-s.done
		}
	})
}
