package session

import (
	"fmt"
	"runtime/debug"
)

// Exit codes of the specification that this package reports (cli owns the
// full list; the values are the same).
const (
	ExitToolError = 1  // a session or daemon error
	ExitUsage     = 64 // an unknown op, a wrong session, a missing field
	ExitDataErr   = 65 // a request that is not JSON, or too large
	ExitNoInput   = 66 // the target command was not found
	ExitUnavail   = 69 // the target failed to start or connect
	ExitInternal  = 70 // a panic in a handler, an internal error
	ExitInterrupt = 130
	ExitTerminate = 143
)

// Error is a failure with the exit code it maps to.
type Error struct {
	Code int
	Err  error
	// Stack is where an internal error (exit 70) arose, for RUN_MCP_DEBUG=1.
	Stack []byte
	// Exit and Stderr are how a session's server that failed to start
	// ended and what it wrote ("" and nil otherwise).
	Exit   string
	Stderr []string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the process exit code the failure maps to.
func (e *Error) ExitCode() int { return e.Code }

// StackTrace is where an internal error arose (nil for the others).
func (e *Error) StackTrace() []byte { return e.Stack }

func errorf(code int, format string, args ...any) *Error {
	e := &Error{Code: code, Err: fmt.Errorf(format, args...)}
	if code == ExitInternal {
		e.Stack = debug.Stack()
	}
	return e
}
