package actors

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Every request run-mcp sends a target has a deadline, and this file is the
// one place that gives it, so no front end can forget one:
//
//   - initialize and server/discover: the connect timeout (open);
//   - tools/call, resources/read, prompts/get: the call's server-time clock
//     (clock.go), DefaultCallTimeout when the caller gives none;
//   - everything else (the listings, subscribe, listen until acknowledged,
//     logging/setLevel, ping, validate's raw requests): the housekeeping
//     budget, through Conn.request.

// DefaultRequestTimeout is the housekeeping budget when nobody set one.
const DefaultRequestTimeout = 30 * time.Second

// DefaultCallTimeout bounds a call whose caller gave no budget (the
// specification's 300,000 ms).
const DefaultCallTimeout = 5 * time.Minute

// Words are how a front end names its knobs, so a timeout tells the user
// what to change in the words they typed. Empty fields name both the agent
// server's parameter and the shell's flag.
type Words struct {
	RequestTimeout string // e.g. "--request-timeout" or "request_timeout_ms"
	CallTimeout    string // e.g. "--timeout" or "timeout_ms"
	Stderr         string // where to read more of the server's stderr
}

func (w Words) orDefaults() Words {
	if w.RequestTimeout == "" {
		w.RequestTimeout = "--request-timeout / request_timeout_ms"
	}
	if w.CallTimeout == "" {
		w.CallTimeout = "timeout_ms (--timeout from a shell)"
	}
	if w.Stderr == "" {
		w.Stderr = "get_mcp_server_stderr, or run-mcp stderr --session <name>, shows all of it"
	}
	return w
}

// requestTimeoutKey carries one command's own housekeeping budget, for a
// front end whose commands share a connection but each bring their own
// setting (a session daemon runs every command on the one connection).
type requestTimeoutKey struct{}

// WithRequestTimeout sets the housekeeping budget of the requests made under
// ctx, over the connection's and the registry's.
func WithRequestTimeout(ctx context.Context, d time.Duration) context.Context {
	if d <= 0 {
		return ctx
	}
	return context.WithValue(ctx, requestTimeoutKey{}, d)
}

// requestBudget is the housekeeping budget of a request under ctx on a
// connection configured with cfg: the command's own, else the connection's,
// else the registry's, else the default.
func (c *Conn) requestBudget(ctx context.Context, cfg Config) time.Duration {
	if d, ok := ctx.Value(requestTimeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	if cfg.RequestTimeout > 0 {
		return cfg.RequestTimeout
	}
	return c.env.defaultRequestBudget()
}

func (e *engine) defaultRequestBudget() time.Duration {
	if e.requestTimeout > 0 {
		return e.requestTimeout
	}
	return DefaultRequestTimeout
}

// callBudget is the server-time budget of a call: the caller's, or the
// default, never none.
func callBudget(asked time.Duration) time.Duration {
	if asked > 0 {
		return asked
	}
	return DefaultCallTimeout
}

// errBudgetSpent marks a context that ended because a budget ran out.
var errBudgetSpent = errors.New("the request's budget ran out")

func (c *Conn) requestTimedOut(ctx context.Context, s *session, method string, budget time.Duration, err error) *RequestTimeoutError {
	e := &RequestTimeoutError{Method: method, Budget: budget, words: c.env.words.orDefaults(), Err: err}
	if s != nil && s.proc != nil {
		r := c.lifeReport(context.WithoutCancel(ctx), s, 0)
		e.Report = &r
	}
	return e
}

// RequestTimeoutError is a housekeeping request the server never answered.
type RequestTimeoutError struct {
	Method string
	Budget time.Duration
	// Report is the server's process and its last stderr lines (nil over HTTP).
	Report *ProcessReport
	Err    error
	words  Words
}

func (e *RequestTimeoutError) Error() string {
	msg := e.Summary()
	if e.Report != nil {
		msg += "\n" + e.Report.Render()
	}
	return msg
}

// Summary is the message without the server's stderr, for reports that
// carry the stderr themselves (a failed connect).
func (e *RequestTimeoutError) Summary() string {
	w := e.words.orDefaults()
	return fmt.Sprintf("%s got no answer within %d ms (run-mcp's budget for housekeeping requests; change it with %s). "+
		"The server is running but did not answer: %s, or check that it handles %s.",
		e.Method, e.Budget.Milliseconds(), w.RequestTimeout, lookAtStderr(e.Report != nil, w), e.Method)
}

// lookAtStderr says where the evidence is: the stderr run-mcp attached, or,
// for a server it did not start, the server's own logs.
func lookAtStderr(attached bool, w Words) string {
	if attached {
		return "look at its stderr (its last lines are below; " + w.Stderr + ")"
	}
	return "look at the server's own logs (run-mcp did not start it, so it has no stderr to show)"
}

func (e *RequestTimeoutError) Unwrap() error { return e.Err }

// IsTimeout says whether err is a request or call the server left
// unanswered for its whole budget (front ends map it to their exit codes).
func IsTimeout(err error) bool {
	var rt *RequestTimeoutError
	var ct *TimeoutError
	return errors.As(err, &rt) || errors.As(err, &ct)
}
