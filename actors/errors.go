package actors

import (
	"fmt"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/wire"
)

// Stable error codes, at the start of an error's text, so an agent can
// branch on them without parsing prose.
const (
	CodeConnectionRequired = "CONNECTION_REQUIRED"
	CodeNoConnection       = "NO_CONNECTION"
	CodeConnectionLimit    = "CONNECTION_LIMIT"
	CodeCancelled          = "CANCELLED"
	CodeInvalidArgument    = "INVALID_ARGUMENT"
	CodeUnknownTool        = "UNKNOWN_TOOL"
	CodeAlreadyConnected   = "ALREADY_CONNECTED"
	CodeMessageTooLarge    = "MESSAGE_TOO_LARGE"
)

// CodedError is an error whose text starts with a stable code.
type CodedError struct {
	Code string
	Msg  string
}

func (e *CodedError) Error() string { return e.Code + ": " + e.Msg }

func coded(code, format string, args ...any) *CodedError {
	return &CodedError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// StderrHeading introduces the target's stderr in every failure report.
const StderrHeading = "--- Target server stderr (this is almost certainly the cause) ---"

// failureStderrLines is how many of the last stderr lines a failure carries.
const failureStderrLines = 40

// ProcessReport is the evidence of how a target ended, shared by connect
// failures, dead calls, status and reconnect failures.
type ProcessReport struct {
	Command string       `json:"command"`
	Exit    string       `json:"exit,omitempty"`
	ExitRaw *wire.Exit   `json:"-"`
	Stderr  []string     `json:"stderr,omitempty"`
	Noise   []wire.Noise `json:"stdout_noise,omitempty"`
	// NoProcess: no process was started (a command not found, an HTTP
	// target), so there is no stderr to show.
	NoProcess bool `json:"-"`
}

// Render is the report as text: the command, how it ended, and the stderr
// under its heading.
func (r ProcessReport) Render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: %s", r.Command)
	if r.Exit != "" {
		fmt.Fprintf(&b, "\n%s", r.Exit)
	}
	if len(r.Noise) > 0 {
		b.WriteString("\n\n--- stdout noise (lines that are not JSON-RPC; stdout is the protocol channel) ---")
		for _, n := range r.Noise {
			fmt.Fprintf(&b, "\n%s line %d: %s", n.Time.Format("15:04:05.000"), n.Line, n.Text)
		}
	}
	if r.NoProcess {
		return b.String()
	}
	b.WriteString("\n\n" + StderrHeading)
	if len(r.Stderr) == 0 {
		b.WriteString("\n(the server wrote nothing to stderr)")
	}
	for _, l := range r.Stderr {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// ConnectError is a failed connect: the reason and the evidence.
type ConnectError struct {
	Reason    string
	Diagnosis string // for a handshake that never completed
	Report    ProcessReport
	NotFound  bool // the command could not be found (exit 66 headless)
	Err       error
}

func (e *ConnectError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Failed to connect: %s\n", e.Reason)
	if e.Diagnosis != "" {
		b.WriteString(e.Diagnosis + "\n")
	}
	b.WriteString(e.Report.Render())
	return b.String()
}

func (e *ConnectError) Unwrap() error { return e.Err }

// CallError is a call that failed for a reason of the connection rather than
// of the tool: the server died, a timeout, a reconnect, a cancel.
type CallError struct {
	Code   string // CodeCancelled, or "" for the others
	Reason string
	Report *ProcessReport // set when the server died during the call
	Err    error
}

func (e *CallError) Error() string {
	msg := e.Reason
	if e.Code != "" {
		msg = e.Code + ": " + msg
	}
	if e.Report != nil {
		msg += "\n" + e.Report.Render()
	}
	return msg
}

func (e *CallError) Unwrap() error { return e.Err }

// TimeoutError is a call that used its whole server-time budget.
type TimeoutError struct {
	Method            string // tools/call, resources/read or prompts/get
	Budget, InputWait time.Duration
	words             Words
	// process: run-mcp started the server, so its stderr is attached to
	// the CallError that carries this.
	process bool
}

// Error keeps 3.0's words "timed out" (scripts grep for them).
func (e *TimeoutError) Error() string {
	w := e.words.orDefaults()
	msg := fmt.Sprintf("The call timed out after %s of server time", fmtDur(e.Budget))
	if e.InputWait > 0 {
		msg += fmt.Sprintf(" (%s waiting on client input was excluded)", fmtDur(e.InputWait))
	}
	method := e.Method
	if method == "" {
		method = "the call"
	}
	return msg + fmt.Sprintf(": %s got no answer within its %d ms budget. Raise %s if the server is slow but healthy; "+
		"otherwise %s, or check that it answers %s.", method, e.Budget.Milliseconds(), w.CallTimeout, lookAtStderr(e.process, w), method)
}

// InterruptedError is a call a reconnect cut short.
type InterruptedError struct{ After time.Duration }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("A reconnect interrupted this call after %s: the server it was running on was stopped and restarted. Call again.", fmtDur(e.After))
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// Advised is an error with one more line under its first: what to try, in
// the words of the front end that adds it (a tool argument for the agent,
// a flag for a shell). It unwraps to Err, so the error's type, and with it
// the exit code and the server's report below the first line, are kept.
type Advised struct {
	Err    error
	Advice string
}

func (a *Advised) Error() string {
	first, rest, _ := strings.Cut(a.Err.Error(), "\n")
	if rest != "" {
		rest = "\n" + rest
	}
	return first + "\n" + a.Advice + rest
}

func (a *Advised) Unwrap() error { return a.Err }
