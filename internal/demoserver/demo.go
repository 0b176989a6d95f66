package demoserver

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"
)

// demo is the state of one Serve call. Nothing outlives it.
type demo struct {
	opts   Options
	stdout *lockedWriter
	stderr *lockedWriter
	stop   context.CancelFunc // ends Serve when a replaced Exit returns

	srv     *server.MCPServer // set once, before serving starts
	counter atomic.Int64      // the value behind demo://counter
	subs    subscriptions     // who wants notifications/resources/updated

	exitMu   sync.Mutex
	exited   bool
	exitedAs int
}

func newDemo(opts Options, stdout, stderr io.Writer, stop context.CancelFunc) *demo {
	if opts.Exit == nil {
		opts.Exit = defaultExit
	}
	return &demo{
		opts:   opts,
		stdout: newLockedWriter(stdout),
		stderr: newLockedWriter(stderr),
		stop:   stop,
		subs:   newSubscriptions(),
	}
}

// printf writes a log line to stderr. Errors are ignored: stderr is the last
// place we could report them.
func (d *demo) printf(format string, args ...any) {
	_, _ = fmt.Fprintf(d.stderr, format, args...)
}

// exit ends the process. stdout is silenced first, so that if Exit returns
// (tests) nothing more reaches the client, exactly as after a real exit.
func (d *demo) exit(code int) {
	d.stdout.stop()
	d.exitMu.Lock()
	if !d.exited {
		d.exited, d.exitedAs = true, code
	}
	d.exitMu.Unlock()
	d.opts.Exit(code)
	d.stop()
}

// exitCode reports the code of the first exit, if there was one.
func (d *demo) exitCode() (int, bool) {
	d.exitMu.Lock()
	defer d.exitMu.Unlock()
	return d.exitedAs, d.exited
}
