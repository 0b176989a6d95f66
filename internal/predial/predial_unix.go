//go:build unix

package predial

import (
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// dialWait bounds the early dial: a daemon's socket that exists answers at
// once (or refuses at once); more is a daemon in trouble, which the command
// reports with its own dial.
const dialWait = 50 * time.Millisecond

// freshFor is how long the early connection stays worth taking: the daemon
// drops a connection that sends nothing for far longer (10 s), and a command
// that took this long to get its request ready has lost nothing by dialling
// again.
const freshFor = 2 * time.Second

// early is the connection dialled while the package inits run: process-
// wide state, as the init that starts it is, taken at most once. done is
// closed when that work has ended (nil: none was started); the fields are
// read only after it. sent is the request line already written on conn
// (see CallLine), or nil; signals is SIGINT and SIGTERM, taken over before
// it was sent (see Interrupts).
var early struct {
	done    chan struct{}
	mu      sync.Mutex
	conn    net.Conn
	path    string
	at      time.Time
	sent    []byte
	signals chan os.Signal
}

// init starts the early work on a goroutine and returns, so the inits
// after it run beside that work. Done inline, the writes would wake the
// daemon from the thread running the inits, and the kernel, which puts a
// woken task on its waker's CPU when the waker looks about to sleep, often
// ran the daemon and its server there: a warm call came out about half a
// millisecond slower than with the goroutine, in runs interleaved with it.
func init() {
	name, ok := Session(os.Args[1:])
	if !ok {
		return
	}
	early.done = make(chan struct{})
	go func() {
		defer close(early.done)
		dialEarly(name)
	}()
}

// dialEarly connects to the session's daemon and, for a call simple enough
// (CallLine), sends the call.
func dialEarly(name string) {
	// The same checked private directory the command dials in: a socket
	// anywhere else is never reached.
	dir, err := safesocket.Dir()
	if err != nil {
		return
	}
	path := safesocket.Path(dir, name)
	c, err := safesocket.Dial(path, dialWait)
	if err != nil {
		return
	}
	early.conn, early.path, early.at = c, path, time.Now()
	cwd, _ := os.Getwd() // as the cli reads it: "" leaves the field out
	if line, ok := CallLine(os.Args[1:], cwd, os.Getenv("RUN_MCP_DEBUG") == "1"); ok {
		// Once the call is made, an interrupt must cancel it as one during
		// the call does (the command hangs up and exits 130 or 143 with its
		// message), not kill the process while the server already runs the
		// tool: SIGINT and SIGTERM are taken over before the line goes.
		early.signals = make(chan os.Signal, 1)
		signal.Notify(early.signals, os.Interrupt, syscall.SIGTERM)
		send(line)
	}
}

// Interrupts returns SIGINT and SIGTERM, taken over before a call was sent
// early; ok is false when none was (the command takes them over itself).
// It hands them out once.
func Interrupts() (signals <-chan os.Signal, ok bool) {
	if early.done == nil {
		return nil, false
	}
	<-early.done
	early.mu.Lock()
	defer early.mu.Unlock()
	ch := early.signals
	early.signals = nil
	return ch, ch != nil
}

// send writes the request line on the early connection, so the daemon and
// its server work on the call while run-mcp finishes starting. A line not
// written whole is no request (the daemon reads none from it), so the
// connection is given up and the command sends its own.
func send(line []byte) {
	_ = early.conn.SetWriteDeadline(time.Now().Add(dialWait))
	if _, err := early.conn.Write(line); err != nil {
		_ = early.conn.Close()
		early.conn = nil
		return
	}
	_ = early.conn.SetWriteDeadline(time.Time{})
	early.sent = line
}

// Take returns the early connection if it was dialled to path and is still
// fresh, with the request line already sent on it (nil if none), and nil
// otherwise (closing one that is of no use). It hands the connection out
// once. A connection that carries a request is never too old: its answer
// is on its way, and closing it would cancel the call.
func Take(path string) (net.Conn, []byte) {
	if early.done == nil {
		return nil, nil
	}
	<-early.done
	early.mu.Lock()
	defer early.mu.Unlock()
	c, sent := early.conn, early.sent
	if c == nil {
		return nil, nil
	}
	early.conn, early.sent = nil, nil
	if early.path != path || sent == nil && time.Since(early.at) > freshFor {
		_ = c.Close()
		return nil, nil
	}
	return c, sent
}
