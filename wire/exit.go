package wire

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Exit is how a target process ended.
type Exit struct {
	Code int `json:"code"` // -1 when a signal ended it
	// Signal names the signal that ended it ("SIGSEGV"), if one did.
	Signal string `json:"signal,omitempty"`
	// StoppedByUs says run-mcp itself stopped the process (disconnect,
	// reconnect, shutdown), so a SIGTERM is not reported as a crash.
	StoppedByUs bool `json:"stopped_by_run_mcp,omitempty"`
}

// exitFromState reads an *os.ProcessState into an Exit.
func exitFromState(ps *os.ProcessState, stoppedByUs bool) Exit {
	e := Exit{Code: ps.ExitCode(), StoppedByUs: stoppedByUs}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		e.Code = -1
		e.Signal = SignalName(ws.Signal())
	}
	return e
}

// Sentence is the one sentence used everywhere run-mcp says how a process
// ended: connect failures, status, reconnect, a call the server died in, and
// validate all read the same.
func (e Exit) Sentence() string {
	switch {
	case e.StoppedByUs && e.Signal != "":
		return fmt.Sprintf("The server was stopped by run-mcp (%s).", e.Signal)
	case e.StoppedByUs:
		return fmt.Sprintf("The server was stopped by run-mcp and exited with code %d.", e.Code)
	case e.Signal != "":
		return fmt.Sprintf("The server was killed by %s.", e.Signal)
	case e.Code == 0:
		return "The server exited with code 0 (it chose to stop)."
	default:
		return fmt.Sprintf("The server exited with code %d.", e.Code)
	}
}

// LauncherSentence is the sentence for a target whose own process (pid)
// ended this way while others still serve its connection: a launcher, such
// as a wrapper script or npx, that started the real server on the same
// pipes and exited. serving is Process.Serving; without any it is Sentence.
//
//	The launcher (PID 41) exited with code 0; PID 42 still serves the connection.
func (e Exit) LauncherSentence(pid int, serving []int) string {
	if len(serving) == 0 {
		return e.Sentence()
	}
	how := fmt.Sprintf("exited with code %d", e.Code)
	if e.Signal != "" {
		how = "was killed by " + e.Signal
	}
	who := "PID " + strconv.Itoa(serving[0]) + " still serves"
	if len(serving) > 1 {
		ids := make([]string, len(serving))
		for i, p := range serving {
			ids[i] = strconv.Itoa(p)
		}
		who = "PIDs " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1] + " still serve"
	}
	return fmt.Sprintf("The launcher (PID %d) %s; %s the connection.", pid, how, who)
}

// SignalName gives the conventional upper-case name of a signal.
func SignalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGHUP: "SIGHUP", syscall.SIGILL: "SIGILL", syscall.SIGINT: "SIGINT",
		syscall.SIGKILL: "SIGKILL", syscall.SIGPIPE: "SIGPIPE", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGSEGV: "SIGSEGV", syscall.SIGTERM: "SIGTERM", syscall.SIGTRAP: "SIGTRAP",
		syscall.SIGALRM: "SIGALRM",
	}
	for sig, name := range platformSignalNames() {
		names[sig] = name
	}
	if n, ok := names[s]; ok {
		return n
	}
	if n, ok := platformSignalName(s); ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
