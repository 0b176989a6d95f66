package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals end a command the way a closed stdin ends the agent server:
// every target is stopped before run-mcp exits. SIGHUP is among them because
// that is what an agent's shell sends a command it gives up on (a timeout, a
// closed terminal), and its default action would exit with the targets
// left to their supervisors' last resort.
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// notifyLater is signal.NotifyContext with the signals taken over on a
// goroutine of its own: the first signal.Notify starts a runtime thread and
// hands each signal to it (a few tenths of a millisecond), which a one-shot
// command would otherwise pay before it spawns its server. A signal before
// the takeover ends run-mcp by its default action, as one during run-mcp's
// own start always has; its supervisor then stops the server. stop waits for
// the takeover before undoing it.
func notifyLater(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	armed, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		signal.Notify(ch, sigs...)
		close(armed)
		select {
		case s := <-ch:
			// NotifyContext's cause, which reaches the server as the reason
			// of notifications/cancelled.
			cancel(errors.New(s.String() + " signal received"))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		<-armed
		signal.Stop(ch)
		cancel(nil)
		<-done
	}
}
