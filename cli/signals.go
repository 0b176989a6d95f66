package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/run-mcp/run-mcp/actors"
)

// stopSignals end a command the way a closed stdin ends the agent server:
// every target is stopped before run-mcp exits. SIGHUP is among them because
// that is what an agent's shell sends a command it gives up on (a timeout, a
// closed terminal), and its default action would exit with the targets
// left to their supervisors' last resort.
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// signalled is the cause a stop signal gives a command's context. Its text
// reaches the server as the reason of notifications/cancelled.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "run-mcp was interrupted by " + signalName(s.sig) }

// signalName is the signal as a shell user knows it.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP (its terminal or the shell that ran it went away)"
	}
	return sig.String()
}

// signalCode is the exit code of a command a signal stopped: 128 plus the
// signal's number, what a shell reports for a process the signal killed,
// so a script sees the same code whether run-mcp stopped its server first
// or not (SIGHUP 129, SIGINT 130, SIGTERM 143).
func signalCode(sig os.Signal) int {
	switch sig {
	case syscall.SIGHUP:
		return ExitHangup
	case syscall.SIGTERM:
		return ExitTerminate
	}
	return ExitInterrupt
}

// signalOf is the stop signal that cancelled ctx, if one did.
func signalOf(ctx context.Context) (os.Signal, bool) {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		return s.sig, true
	}
	return nil, false
}

// interruption is a command a signal stopped: what it was doing in words,
// then the server's report when there is one (its stderr may say why it
// was slow). It unwraps to the engine's error, so --raw's envelope still
// finds how the server ended and what it wrote.
type interruption struct {
	msg    string
	report string
	err    error
}

func (e *interruption) Error() string {
	if e.report == "" {
		return e.msg
	}
	return e.msg + "\n" + e.report
}

func (e *interruption) Unwrap() error { return e.err }

// interrupted is err reworded for a command a stop signal ended, with the
// signal's exit code; err itself when no signal did. The engine's words
// for a cancelled context ("context canceled", "cancelled by the client")
// are replaced by which signal it was and what became of the server.
func interrupted(ctx context.Context, err error) error {
	sig, ok := signalOf(ctx)
	if !ok || err == nil {
		return err
	}
	name := signalName(sig)
	in := &interruption{err: err, msg: fmt.Sprintf("interrupted by %s before the command finished; the server was stopped", name)}
	var ce *actors.ConnectError
	var call *actors.CallError
	switch {
	case errors.As(err, &ce):
		in.msg = fmt.Sprintf("interrupted by %s before the handshake with the server completed; the server was stopped", name)
		in.report = ce.Report.Render()
	case errors.As(err, &call) && call.Code == actors.CodeCancelled:
		in.msg = fmt.Sprintf("interrupted by %s while the server worked on the request: it was cancelled (the server was sent notifications/cancelled) and the server was stopped", name)
	case errors.As(err, &call) && call.Report != nil:
		in.report = call.Report.Render()
	}
	return &ExitError{Code: signalCode(sig), Kind: codeInterrupted, Err: in}
}

// notifyLater is signal.NotifyContext with the signals taken over on a
// goroutine of its own: the first signal.Notify starts a runtime thread and
// hands each signal to it (a few tenths of a millisecond), which a one-shot
// command would otherwise pay before it spawns its server. A signal before
// the takeover ends run-mcp by its default action, as one during run-mcp's
// own start always has; its supervisor then stops the server. The context's
// cause is a signalled.
//
// stop ends the takeover's goroutine but leaves the signals taken over: it
// comes when the command is done and its server stopped, as run-mcp is about
// to exit, and undoing the takeover (signal.Stop) waits on the runtime's
// signal thread again, once per signal, at the end of every command. A
// signal from then to the exit is let pass.
func notifyLater(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		signal.Notify(ch, sigs...)
		select {
		case s := <-ch:
			cancel(signalled{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel(nil)
		<-done
	}
}

// notifyNow is notifyLater taken over at once, for commands that do not
// race their server's start (stderr, validate).
func notifyNow(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := notifyLater(parent, stopSignals()...)
	return ctx, stop
}
