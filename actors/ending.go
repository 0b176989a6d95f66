package actors

import (
	"errors"
	"fmt"

	"github.com/run-mcp/run-mcp/wire"
)

// tooLarge says the channel closed because the server sent a message over
// wire.MaxMessage: run-mcp closed it, the server did not die.
func tooLarge(err error) bool {
	var tl *wire.TooLargeError
	return errors.As(err, &tl)
}

// tooLargeReason is the MESSAGE_TOO_LARGE text: the size, the cap, and that
// run-mcp, not the server, closed the connection.
func tooLargeReason(err error) string {
	var tl *wire.TooLargeError
	errors.As(err, &tl)
	return fmt.Sprintf("%s: %s. The server process was stopped with it; reconnect_to_mcp starts it again",
		CodeMessageTooLarge, tl.Error())
}

// ending says how a life that ended by itself ended: the phase it leaves the
// connection in, the why of NO_CONNECTION and status, and the heading of
// the report in status. Each case is told as what happened: a message over
// the cap is run-mcp closing the connection, a closed stdout with the
// process still there is not a death.
func (s *session) ending() (phase Phase, why, heading string) {
	chErr := s.chanErr
	switch {
	case tooLarge(chErr):
		r := tooLargeReason(chErr)
		return PhaseClosed, r, r
	case s.proc == nil:
		return PhaseDead, "the server is not running", "The connection ended."
	}
	if diedByItself(s.proc) {
		e, _ := s.proc.Exit()
		return PhaseDead, "the server died: " + e.Sentence(), "The server died."
	}
	if s.channelEnded {
		what := stdoutClosed(s.proc.Pid())
		return PhaseDead, what + "; run-mcp stopped it, since it can no longer answer", "The " + what[len("the "):] + "."
	}
	return PhaseDead, "the server is not running", "The connection ended."
}

// stdoutClosed is the sentence for a server that closed its stdout (the
// protocol channel) and was still running a moment later.
func stdoutClosed(pid int) string {
	return fmt.Sprintf("the server closed its stdout but is still running (PID %d)", pid)
}

// diedByItself says the process has exited, and not because run-mcp stopped it.
func diedByItself(p *wire.Process) bool {
	e, ok := p.Exit()
	return ok && !e.StoppedByUs
}
