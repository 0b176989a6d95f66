package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/wire"
)

// errorEnvelope is what --raw prints on stdout when a command fails, so a
// script need not parse stderr: the message, a code (run-mcp's stable
// code as a string, the server's JSON-RPC error code as the number it sent,
// or null when the failure has none), the exit code, how the server ended
// (null while it runs) and what it wrote to stderr.
type errorEnvelope struct {
	Error    string   `json:"error"`
	Code     any      `json:"code"`
	ExitCode int      `json:"exit_code"`
	Exit     *string  `json:"exit"`
	Stderr   []string `json:"stderr"`
	// Redirects are the HTTP redirects the connection followed before it
	// failed (absent when none): a URL that moved elsewhere, where the
	// configured headers were not sent, often explains the failure.
	Redirects []wire.Redirect `json:"redirects,omitempty"`
}

// failure is an error with what the server showed of it, gathered where
// the connection was still at hand.
type failure struct {
	err       error
	exit      string
	stderr    []string
	redirects []wire.Redirect
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// withServerSide attaches the server's end and stderr to err: from the
// error's own report when the server died or never started, else from c
// (the stderr since mark: a session's server has a longer life than one
// command).
func withServerSide(ctx context.Context, err error, c *actors.Conn, mark int) error {
	if err == nil {
		return nil
	}
	var f failure
	f.err = err
	var ce *actors.ConnectError
	var call *actors.CallError
	var rt *actors.RequestTimeoutError
	switch {
	case errors.As(err, &ce):
		f.exit, f.stderr = ce.Report.Exit, untimed(ce.Report.Stderr)
	case errors.As(err, &call) && call.Report != nil:
		f.exit, f.stderr = call.Report.Exit, untimed(call.Report.Stderr)
	case errors.As(err, &rt) && rt.Report != nil:
		f.exit, f.stderr = rt.Report.Exit, untimed(rt.Report.Stderr)
	case c != nil:
		ctx = context.WithoutCancel(ctx)
		if ex, ok, serr := c.Stderr(ctx, mark, 0); serr == nil && ok {
			f.stderr = ex.Render(false)
		}
		if st, serr := c.Status(ctx); serr == nil {
			f.exit = st.Exit
		}
	}
	f.redirects = redirectsOf(ctx, c)
	return &f
}

// reportStamp is the time and position a report puts before each stderr
// line ("11:22:28.086 #1  "); the envelope's lines are the server's own,
// as call --raw shows them.
var reportStamp = lazyRegexp(`^\d\d:\d\d:\d\d\.\d{3} #\d+  `)

func untimed(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, reportStamp().ReplaceAllString(l, ""))
	}
	return out
}

// envelopeOf builds the --raw error envelope of err.
func envelopeOf(err error) errorEnvelope {
	env := errorEnvelope{Error: failureMessage(err), ExitCode: exitCodeOf(err), Stderr: []string{}}
	var te *actors.TargetError
	if code := failureCode(err, env.ExitCode); code != "" {
		env.Code = code
	} else if errors.As(err, &te) {
		env.Code = te.Code // the server's own, as a number
	}
	var se *session.Error
	if errors.As(err, &se) && se.Exit != "" {
		err = &failure{err: err, exit: se.Exit, stderr: untimed(se.Stderr)}
		if env.Code == nil {
			env.Code = codeConnectFailed
		}
	}
	var f *failure
	if errors.As(err, &f) {
		if f.exit != "" {
			env.Exit = &f.exit
		}
		if f.stderr != nil {
			env.Stderr = f.stderr
		}
		env.Redirects = f.redirects
	}
	return env
}

// failureMessage is the error without the server's report (the envelope
// has it in exit and stderr), with the hints added to it.
func failureMessage(err error) string {
	msg := bareMessage(err)
	for e := err; e != nil; e = errors.Unwrap(e) {
		if h, ok := e.(*actors.Advised); ok && !strings.Contains(msg, h.Advice) {
			msg += "\n" + h.Advice
		}
	}
	return msg
}

// bareMessage is failureMessage without the hints.
func bareMessage(err error) string {
	var in *interruption
	if errors.As(err, &in) {
		return in.msg
	}
	var ce *actors.ConnectError
	if errors.As(err, &ce) {
		msg := "Failed to connect: " + ce.Reason
		if ce.Diagnosis != "" {
			msg += "\n" + ce.Diagnosis
		}
		return msg
	}
	var call *actors.CallError
	if errors.As(err, &call) && call.Report != nil {
		if call.Code != "" {
			return call.Code + ": " + call.Reason
		}
		return call.Reason
	}
	msg := err.Error()
	if before, _, ok := strings.Cut(msg, "\nCommand: "); ok && !strings.HasPrefix(msg, "Command: ") {
		return before
	}
	return msg
}

// Stable codes of the envelope, beside the engine's own (UNKNOWN_TOOL,
// NO_CONNECTION, …).
const (
	codeCommandNotFound = "COMMAND_NOT_FOUND"
	codeConnectFailed   = "CONNECT_FAILED"
	codeTimeout         = "TIMEOUT"
	codeServerExited    = "SERVER_EXITED"
	codeUsage           = "USAGE"
	codeInvalidArgs     = "INVALID_ARGUMENTS"
	codeInterrupted     = "INTERRUPTED"
)

// failureCode is err's stable code, or "" when it has none.
func failureCode(err error, exit int) string {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Kind != "" {
		return ee.Kind
	}
	var ce *actors.ConnectError
	var call *actors.CallError
	var coded *actors.CodedError
	switch {
	case exit == ExitInterrupt || exit == ExitTerminate || exit == ExitHangup:
		return codeInterrupted
	case errors.As(err, &ce) && ce.NotFound:
		return codeCommandNotFound
	case ce != nil:
		return codeConnectFailed
	case actors.IsTimeout(err):
		return codeTimeout
	case errors.As(err, &call) && call.Code != "":
		return call.Code
	case call != nil && call.Report != nil:
		return codeServerExited
	case errors.As(err, &coded):
		return coded.Code
	case exit == ExitUsage:
		return codeUsage
	case exit == ExitDataErr:
		return codeInvalidArgs
	}
	return ""
}

// printEnvelope writes err's envelope on stdout under --raw, unless the
// command already printed what it had to say (a result with isError, a
// session's reply).
func printEnvelope(io streams, err error) {
	var ee *ExitError
	if err == nil || (errors.As(err, &ee) && (ee.Quiet || ee.Printed)) {
		return
	}
	_ = io.printJSON(envelopeOf(err))
}
