package demoserver

import (
	"errors"
	"io"
	"sync"
)

// errStopped is what a write gets once the server has "exited": in a real
// process nothing can reach the pipe after os.Exit, and tests that replace
// Exit must see the same silence.
var errStopped = errors.New("demo-server has exited")

// lockedWriter serialises whole Write calls. mcp-go writes each frame with a
// single Write, but its server-initiated requests (elicitation, sampling,
// roots) bypass the lock it holds for responses, and our own noise and
// stderr lines come from other goroutines too; one mutex per Write keeps
// every line whole.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	stopped bool
}

func newLockedWriter(w io.Writer) *lockedWriter {
	return &lockedWriter{w: w}
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return 0, errStopped
	}
	return l.w.Write(p)
}

// stop makes every later Write fail, as if the process had gone.
func (l *lockedWriter) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}
