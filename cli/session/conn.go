package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// ErrNoAnswer is a daemon that took the request and did not answer within
// After: the command's budget and Margin.
type ErrNoAnswer struct{ After time.Duration }

func (e ErrNoAnswer) Error() string { return fmt.Sprintf("no answer after %s", e.After) }

// ErrCannotReach is a daemon whose socket refused the connection.
type ErrCannotReach struct{ Err error }

func (e ErrCannotReach) Error() string { return fmt.Sprintf("cannot connect to its socket: %v", e.Err) }
func (e ErrCannotReach) Unwrap() error { return e.Err }

// Ask sends one request to the daemon at socket and waits up to wait for
// the reply. Cancelling ctx closes the connection, which cancels the
// request in the daemon; Ask then returns ctx's error.
func Ask(ctx context.Context, socket string, req Request, wait time.Duration) (*Reply, error) {
	c, err := Dial(socket)
	if err != nil {
		return nil, err
	}
	return c.Ask(ctx, req, wait, nil)
}

// dialWait bounds a dial that has to wait for the daemon (a busy named
// pipe on Windows; a Unix socket connects or fails at once).
const dialWait = 2 * time.Second

// Conn is a connection to a session daemon that carries one request. A
// client dials before its request is ready, so that the daemon wakes up
// (accepts) while the client prepares it.
type Conn struct {
	c net.Conn
	// Longer, when set, is asked once, when the wait for the reply has run
	// out, how much longer to wait (0: no longer). A warm client knows its
	// own flags but not the budgets its session was started with, which
	// only its record says; reading it only then keeps it off the warm path.
	Longer func() time.Duration
	// Stuck, when set, is asked every stuckPoll while the reply is awaited
	// whether the daemon can no longer answer (stopped by a signal): then
	// the wait ends at once rather than after a budget of minutes.
	Stuck func() bool
}

// stuckPoll is how often a client waiting for its reply asks Stuck.
const stuckPoll = time.Second

// Dial connects to the daemon at socket; an error is ErrCannotReach.
func Dial(socket string) (*Conn, error) {
	c, err := safesocket.Dial(socket, dialWait)
	if err != nil {
		return nil, ErrCannotReach{Err: err}
	}
	return &Conn{c: c}, nil
}

// Close hangs up without a request (the daemon drops such a connection).
func (k *Conn) Close() error { return k.c.Close() }

// Ask sends req and waits up to wait for the reply to begin (then Longer,
// if it says so), then closes the connection. The reply's bytes, once they
// flow, get the time the daemon gives itself to write them, whatever its
// size. Cancelling ctx closes the connection early, which cancels the
// request in the daemon; Ask then returns ctx's error. A daemon that does
// not take the request or answer it in time is ErrNoAnswer. sent, when not
// nil, is called once the request is on its way. A request over MaxRequest
// is refused here (*Error, exit 65), before anything is sent.
func (k *Conn) Ask(ctx context.Context, req Request, wait time.Duration, sent func()) (*Reply, error) {
	c := k.c
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	b, err := encodeLine(req)
	if err != nil {
		return nil, errorf(ExitDataErr, "the request to the session daemon cannot be encoded: %v", err)
	}
	if len(b)-1 > MaxRequest {
		return nil, errorf(ExitDataErr, "the request is %d bytes, more than the %d MiB a session's daemon takes (%d MiB of arguments, as a one-shot command, and its command line); "+
			"pass smaller arguments, or run the command without --session", len(b)-1, MaxRequest>>20, maxArgs>>20)
	}
	start := time.Now()
	deadline := start.Add(wait)
	if err := k.send(c, b, deadline); err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case IsTimeout(err): // a stopped daemon whose socket buffer is full
			return nil, ErrNoAnswer{After: time.Since(start).Round(time.Millisecond)}
		}
		return nil, fmt.Errorf("send to the session daemon: %w", err)
	}
	if sent != nil {
		sent()
	}
	br := bufio.NewReader(c)
	waited := wait
	if err = k.awaitReply(ctx, c, br, deadline); err != nil && IsTimeout(err) {
		waited = time.Since(start).Round(time.Millisecond)
	}
	if err == nil {
		_ = c.SetReadDeadline(time.Now().Add(replyWait + Margin))
		var line []byte
		if line, err = ReadLine(br, MaxReply); err == nil {
			return decodeReply(line, req.Session)
		}
	}
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case IsTimeout(err):
		return nil, ErrNoAnswer{After: waited}
	}
	return nil, fmt.Errorf("read the session daemon's answer: %w", err)
}

// send writes the request by deadline; a daemon that stops reading it (a
// request larger than the socket's buffer) is given up on early when Stuck
// says so.
func (k *Conn) send(c net.Conn, b []byte, deadline time.Time) error {
	for {
		until := deadline
		if k.Stuck != nil {
			until = minTime(deadline, time.Now().Add(stuckPoll))
		}
		_ = c.SetWriteDeadline(until)
		n, err := c.Write(b)
		b = b[n:]
		if err == nil || !IsTimeout(err) || !time.Now().Before(deadline) || k.Stuck != nil && k.Stuck() {
			return err
		}
	}
}

// awaitReply waits until the reply begins (its first byte is buffered in
// br) or deadline, extended once by Longer; Stuck, asked every stuckPoll,
// may end the wait early. It returns nil, or the read's error: a timeout
// when the daemon did not answer.
func (k *Conn) awaitReply(ctx context.Context, c net.Conn, br *bufio.Reader, deadline time.Time) error {
	longer := k.Longer
	for {
		until := deadline
		if k.Stuck != nil {
			until = minTime(deadline, time.Now().Add(stuckPoll))
		}
		_ = c.SetReadDeadline(until)
		_, err := br.Peek(1)
		if err == nil || !IsTimeout(err) || ctx.Err() != nil {
			return err
		}
		switch {
		case time.Now().Before(deadline):
			if k.Stuck != nil && k.Stuck() {
				return err
			}
		case longer != nil:
			more := longer()
			longer = nil
			if more <= 0 {
				return err
			}
			deadline = deadline.Add(more)
		default:
			return err
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// decodeReply reads the daemon's reply line.
func decodeReply(line []byte, session string) (*Reply, error) {
	var reply Reply
	if err := json.Unmarshal(line, &reply); err != nil {
		// Not err itself: it names Go types, which mean nothing to a user.
		return nil, fmt.Errorf("the session daemon's answer (%d bytes) is not a reply of its protocol; it may be a daemon of another run-mcp version: close-session %s and start the session again", len(line), session)
	}
	return &reply, nil
}

// IsTimeout says whether err is a deadline that passed.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
