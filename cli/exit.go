package cli

import (
	"errors"
	"fmt"
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
	ExitInterrupt = 130
	ExitTerminate = 143 // SIGTERM
)

// ExitError carries the exit code a failure maps to.
type ExitError struct {
	Code int
	Err  error
	// Quiet: the message was already printed (a result on stdout, say).
	Quiet bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func exitf(code int, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Err: fmt.Errorf(format, args...)}
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
