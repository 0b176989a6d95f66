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

// ErrNoAnswer is a daemon that took the request and never answered.
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
type Conn struct{ c net.Conn }

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

// Ask sends req and waits up to wait for the reply, then closes the
// connection. Cancelling ctx closes it early, which cancels the request in
// the daemon; Ask then returns ctx's error. sent, when not nil, is called
// once the request is on its way. A request over MaxRequest is refused here
// (*Error, exit 65), before anything is sent.
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
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write(b); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("send to the session daemon: %w", err)
	}
	if sent != nil {
		sent()
	}
	line, err := ReadLine(bufio.NewReader(c), MaxReply)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case IsTimeout(err):
			return nil, ErrNoAnswer{After: wait}
		}
		return nil, fmt.Errorf("read the session daemon's answer: %w", err)
	}
	var reply Reply
	if err := json.Unmarshal(line, &reply); err != nil {
		// Not err itself: it names Go types, which mean nothing to a user.
		return nil, fmt.Errorf("the session daemon's answer (%d bytes) is not a reply of its protocol; it may be a daemon of another run-mcp version: close-session %s and start the session again", len(line), req.Session)
	}
	return &reply, nil
}

// IsTimeout says whether err is a deadline that passed.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
