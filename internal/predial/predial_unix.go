//go:build unix

package predial

import (
	"bytes"
	"errors"
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

// maxAnswer bounds the answer read here. A call's answer is small (long
// text and media go to files), so a bigger one is a daemon to be wary of:
// it is left to the command, which reads the rest under its own bound, and
// what is kept for it here stays small.
const maxAnswer = 8 << 20

// AnswerWait is how long a call sent here waits for its answer, from when
// it was sent: what the command waits with its defaults (the call's 300 s,
// a re-listing's 30 s, a 15 s margin; cli's tests hold the two equal). A
// daemon silent for longer is the command's to report, at once.
const AnswerWait = 345 * time.Second

// early is the connection dialled while the package inits run: process-
// wide state, as the init that starts it is, taken at most once. done is
// closed when that work has ended (nil: none was started); the fields are
// read only after it. sent is the request line already written on conn
// (see CallLine), or nil; read is what was read of the answer before the
// command was left to finish the call; signals is SIGINT and SIGTERM,
// taken over before the line was sent (see Interrupts).
var early struct {
	done    chan struct{}
	mu      sync.Mutex
	conn    net.Conn
	path    string
	at      time.Time
	sent    []byte
	read    []byte
	signals chan os.Signal
}

// init makes a simple call (CallLine) here and now: the request goes, the
// answer is printed and run-mcp exits with its code, all before the heavy
// package inits, which such a call never needs. Anything else it leaves to
// the command with the connection as it stands: an interrupt, a daemon
// that hangs up or answers something else. Any other sessioned command gets
// its connection dialled on a goroutine, beside the inits.
func init() {
	name, ok := Session(os.Args[1:])
	if !ok {
		return
	}
	early.done = make(chan struct{})
	if line, ok := callLine(os.Args[1:]); ok {
		defer close(early.done)
		if code, ok := call(name, line); ok {
			os.Exit(code)
		}
		return
	}
	go func() {
		defer close(early.done)
		dial(name)
	}()
}

// callLine is CallLine for this process. The working directory is read
// only for a call: the other sessioned commands need none of it here.
func callLine(args []string) ([]byte, bool) {
	if args[0] != "call" {
		return nil, false
	}
	cwd, _ := os.Getwd() // as the cli reads it: "" leaves the field out
	return CallLine(args, cwd, os.Getenv("RUN_MCP_DEBUG") == "1")
}

// dial connects to the session's daemon.
func dial(name string) bool {
	// The same checked private directory the command dials in: a socket
	// anywhere else is never reached.
	dir, err := safesocket.Dir()
	if err != nil {
		return false
	}
	path := safesocket.Path(dir, name)
	c, err := safesocket.Dial(path, dialWait)
	if err != nil {
		return false
	}
	early.conn, early.path, early.at = c, path, time.Now()
	return true
}

// call sends line to the session's daemon and prints the answer; ok says
// it did, and code is the exit code the answer carries.
func call(name string, line []byte) (code int, ok bool) {
	if !dial(name) {
		return 0, false
	}
	// Once the call is made, an interrupt must cancel it as one during the
	// call does (the command hangs up and exits 130 or 143 with its
	// message), not kill the process while the server runs the tool.
	early.signals = make(chan os.Signal, 1)
	signal.Notify(early.signals, os.Interrupt, syscall.SIGTERM)
	if !send(line) {
		return 0, false
	}
	answer, ok := await()
	if !ok {
		return 0, false
	}
	code, stdout, stderr, ok := PlainReply(answer)
	if !ok {
		return 0, false // read in full by the command (early.read)
	}
	// As the command prints it: what the daemon printed, nothing more.
	_, _ = os.Stdout.WriteString(stdout)
	_, _ = os.Stderr.WriteString(stderr)
	return code, true
}

// send writes the request line on the early connection. A line not written
// whole is no request (the daemon reads none from it), so the connection is
// given up and the command sends its own.
func send(line []byte) bool {
	_ = early.conn.SetWriteDeadline(time.Now().Add(dialWait))
	if _, err := early.conn.Write(line); err != nil {
		_ = early.conn.Close()
		early.conn = nil
		return false
	}
	_ = early.conn.SetWriteDeadline(time.Time{})
	early.sent = line
	return true
}

// await reads the daemon's answer line (without its newline; the last
// bytes before the daemon hung up, if it wrote no newline) until it is
// whole, a read fails, or SIGINT or SIGTERM arrives. ok is false for all
// but the first: what was read is kept in early.read for the command, and
// a signal is put back for it to act on.
func await() ([]byte, bool) {
	var got []byte
	var readErr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for len(got) <= maxAnswer {
			n, err := early.conn.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil || bytes.IndexByte(buf[:n], '\n') >= 0 {
				readErr = err
				return
			}
		}
	}()
	_ = early.conn.SetReadDeadline(early.at.Add(AnswerWait))
	defer func() { _ = early.conn.SetReadDeadline(time.Time{}) }()
	select {
	case <-read:
	case s := <-early.signals:
		_ = early.conn.SetReadDeadline(time.Now()) // ends the read, keeps the connection
		<-read
		early.signals <- s
		early.read = got
		return nil, false
	}
	if i := bytes.IndexByte(got, '\n'); i >= 0 {
		return got[:i], true
	}
	early.read = got
	if readErr == nil || len(got) == 0 || errors.Is(readErr, os.ErrDeadlineExceeded) {
		return nil, false // too big, nothing or too late: the command says what happened
	}
	return got, true // the last line, without its newline, as the command reads it
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

// Take returns the early connection if it was dialled to path and is still
// fresh, with the request line already sent on it (nil if none) and when it
// was dialled, and nil otherwise (closing one that is of no use). What was
// read of the answer is read again first. It hands the connection out once.
// A connection that carries a request is never too old: its answer is on
// its way, and closing it would cancel the call.
func Take(path string) (c net.Conn, sent []byte, at time.Time) {
	if early.done == nil {
		return nil, nil, time.Time{}
	}
	<-early.done
	early.mu.Lock()
	defer early.mu.Unlock()
	c, sent, read := early.conn, early.sent, early.read
	if c == nil {
		return nil, nil, time.Time{}
	}
	early.conn, early.sent, early.read = nil, nil, nil
	if early.path != path || sent == nil && time.Since(early.at) > freshFor {
		_ = c.Close()
		return nil, nil, time.Time{}
	}
	if len(read) > 0 {
		c = &replay{Conn: c, read: read}
	}
	return c, sent, early.at
}

// replay is a connection that gives what was already read from it first.
type replay struct {
	net.Conn
	read []byte
}

func (r *replay) Read(p []byte) (int, error) {
	if len(r.read) > 0 {
		n := copy(p, r.read)
		r.read = r.read[n:]
		return n, nil
	}
	return r.Conn.Read(p)
}
