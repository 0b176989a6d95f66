package cli

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// Exit codes of the specification.
const (
	ExitOK        = 0
	ExitToolError = 1  // the tool reported isError, or a session/daemon error
	ExitUsage     = 64 // bad flag, missing target command, unknown tool
	ExitDataErr   = 65 // invalid JSON or shorthand arguments
	ExitNoInput   = 66 // the target command was not found
	ExitUnavail   = 69 // the target failed to start or connect
	ExitInternal  = 70 // an internal error in run-mcp
	// A stop signal: 128 plus its number, as a shell reports a process the
	// signal killed.
	ExitHangup    = 129 // SIGHUP
	ExitInterrupt = 130 // SIGINT
	ExitTerminate = 143 // SIGTERM
)

// ExitError carries the exit code a failure maps to.
type ExitError struct {
	Code int
	Err  error
	// Quiet: the message was already printed (a result on stdout, say).
	Quiet bool
	// Kind is the stable code of the failure in --raw's error envelope
	// (UNKNOWN_TOOL, …); "" to derive it from the error.
	Kind string
	// Printed: stdout already holds this failure's output, so --raw adds
	// no error envelope after it.
	Printed bool
	// Stack is where an internal error (exit 70) was created, printed
	// with RUN_MCP_DEBUG=1: the stack at exit would only show the exit.
	Stack []byte
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func exitf(code int, format string, args ...any) *ExitError {
	e := &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
	if code == ExitInternal {
		e.Stack = debug.Stack()
	}
	return e
}

// internalf is an internal error: a bug in run-mcp, never the user's
// input or the server's behaviour. Its stack is recorded where it arose.
func internalf(format string, args ...any) *ExitError {
	e := exitf(ExitInternal, format, args...)
	e.Stack = debug.Stack()
	return e
}

// stackOf is the stack recorded where err arose, if any.
func stackOf(err error) []byte {
	var ee *ExitError
	if errors.As(err, &ee) && len(ee.Stack) > 0 {
		return ee.Stack
	}
	var st interface{ StackTrace() []byte }
	if errors.As(err, &st) {
		return st.StackTrace()
	}
	return nil
}

// CodeOf maps an error to its exit code (70 when nothing says otherwise).
func CodeOf(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return ExitInternal
}
