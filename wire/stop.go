package wire

import (
	"syscall"
	"time"
)

func (p *Process) drainStderr() {
	defer close(p.drained)
	drainLines(p.stderrR, p.stderr, maxStderrLine)
}

// wait records the end of the target's own process. Nothing else is
// touched: what the target started may still serve its pipes (a launcher's
// server), and the connection lives while they are served. Stop ends it.
func (p *Process) wait() {
	e := p.child.wait()
	p.mu.Lock()
	e.StoppedByUs = p.stoppedByUs
	p.exit = &e
	p.mu.Unlock()
	close(p.exited)
	<-p.drained // every holder of stderr closed it, or Stop cut it
	_ = p.stderrR.Close()
	close(p.done)
}

// Serving lists the processes that still hold the write end of the
// target's stdout, so can still answer on its connection: the target's own
// process while it lives, and after it exited what it left (the server a
// launcher started). Empty once nothing can answer; nil where the platform
// cannot tell (only Linux can).
func (p *Process) Serving() []int { return p.child.serving(fileInode(p.stdout)) }

// Stop ends the process and everything it started: close stdin,
// StdinGrace, SIGTERM to the process group, then SIGKILL to everything it
// started. It returns once all of it is gone (bounded: a process the
// kernel will not kill is left after termGrace) and the pipes are drained
// or cut.
func (p *Process) Stop() Exit { return p.StopAfter(StdinGrace) }

// StopAfter is Stop with grace in place of StdinGrace; 0 sends SIGTERM as
// stdin closes, for a caller that has all it wanted from the target and
// only waits for it to be gone. Every wait ends as soon as the server
// exits: the target's own process while it lives; once it has exited (a
// launcher), what it left behind.
func (p *Process) StopAfter(grace time.Duration) Exit {
	p.stopOnce.Do(func() {
		p.mu.Lock()
		if p.exit == nil {
			p.stoppedByUs = true
		}
		p.mu.Unlock()
		_ = p.stdin.Close()
		var server <-chan struct{} = p.exited
		if isClosed(p.exited) {
			server = p.child.goneCh()
		}
		if grace <= 0 || !waitFor(server, grace) {
			p.child.terminate()
			waitFor(server, termGrace)
		}
		// Nothing the server started outlives it: once it is gone, so is the
		// rest, and the pipes they held reach end of file.
		if !isClosed(p.child.goneCh()) {
			p.child.killAll()
			waitFor(p.child.goneCh(), termGrace)
		}
		p.child.release()
		if !waitFor(p.exited, termGrace) {
			// Stuck in the kernel (uninterruptible sleep), SIGKILL pending:
			// it ends when the kernel lets it, and run-mcp does not wait.
			p.cut()
			return
		}
		p.cut()
		<-p.done
	})
	if e, ok := p.Exit(); ok {
		return e
	}
	return Exit{Code: -1, Signal: SignalName(syscall.SIGKILL), StoppedByUs: true}
}

// cut makes sure no goroutine waits for ever on a pipe that a process the
// kernel would not kill still holds: the stderr drain gets a moment to
// read the last words, and is then closed; stdout's reader gets a deadline.
func (p *Process) cut() {
	if !waitFor(p.drained, drainGrace) {
		_ = p.stderrR.Close()
	}
	// What the server wrote just before it went may still be in the stdout
	// pipe, unread: a close here lost it (a last answer, under load). A
	// deadline instead ends only a read that would wait; a read that finds
	// data returns it. The reader (the Transport) closes the pipe.
	if p.stdout.SetReadDeadline(time.Now().Add(drainGrace)) != nil {
		_ = p.stdout.Close()
	}
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
