package session

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// How long close-session gives each step before the next, harsher one.
const (
	closeAnswer = 2 * time.Second
	closeGrace  = 5 * time.Second
	signalGrace = 2 * time.Second
)

// Closed is what close-session did, for its report.
type Closed struct {
	Name      string `json:"closed"`
	Pid       int    `json:"pid"`
	DaemonPid int    `json:"daemon_pid"`
	// StoppedBy is how the daemon ended: "close request", "SIGTERM",
	// "SIGKILL" ("TerminateProcess" on Windows), or "already gone".
	StoppedBy string `json:"stopped_by"`
	Note      string `json:"note,omitempty"`
}

// Close stops a session: it asks the daemon to close, waits for it to exit,
// then sends SIGTERM and SIGKILL (Windows: TerminateProcess); a server still alive after its daemon is
// killed too. It reports "closed" only once neither runs.
func Close(dir string, rec *Record) (*Closed, error) {
	out := &Closed{Name: rec.Name, Pid: rec.Pid, DaemonPid: rec.DaemonPid}
	pid, start := rec.DaemonPid, rec.DaemonStart
	switch {
	case !ProcAlive(pid, start):
		out.StoppedBy = "already gone"
		out.Note = "its daemon was not running; the record was removed"
	default:
		reply, err := Ask(context.Background(), rec.Socket, Request{Op: OpClose, Session: rec.Name}, closeAnswer)
		if err == nil && reply.Info != nil && reply.Info.Pid > 0 {
			out.Pid = reply.Info.Pid
		}
		out.StoppedBy = "close request"
		if err != nil || !waitExit(pid, start, closeGrace) {
			why := fmt.Sprintf("did not close within %s of being asked", closeGrace)
			switch {
			case Stopped(pid):
				why = "was stopped (SIGSTOP, Ctrl-Z or a debugger) and could not answer"
			case err != nil:
				why = fmt.Sprintf("did not answer the close request within %s", closeAnswer)
			}
			by, err := stopProc(pid, start)
			if err != nil {
				return nil, errorf(ExitToolError, "session %q: its daemon (PID %d) %v; it still runs. Stop it by hand (%s)", rec.Name, pid, err, byHand(pid))
			}
			out.StoppedBy = by
			out.Note = fmt.Sprintf("its daemon %s, so %s ended it", why, by)
		}
	}
	// The server dies with its daemon; one that outlived it is stopped here.
	spid, sstart := out.Pid, rec.ServerStart
	if spid != rec.Pid {
		sstart = 0 // a pid the daemon reported after a reconnect
	}
	if spid > 0 && !waitExit(spid, sstart, signalGrace) {
		if _, err := stopProc(spid, sstart); err != nil {
			return nil, errorf(ExitToolError, "session %q: its server (PID %d) outlived its daemon and %v. Stop it by hand (%s)", rec.Name, spid, err, byHand(spid))
		}
		out.Note = joinNote(out.Note, fmt.Sprintf("its server (PID %d) outlived the daemon and was stopped", spid))
	}
	Prune(dir, rec)
	return out, nil
}

// stopStep is one way stopProc tries to end a process, and its report name.
type stopStep struct {
	sig  syscall.Signal
	name string
}

// stopProc tries each of stopSteps in turn (SIGTERM, then SIGKILL after
// signalGrace; TerminateProcess on Windows; SIGKILL alone for a stopped
// process), says which one ended the process, and fails only when it
// survives them all.
func stopProc(pid int, start uint64) (string, error) {
	steps := stopSteps()
	if Stopped(pid) {
		// A stopped process cannot act on SIGTERM until it is continued:
		// waiting for it would only delay the kill.
		steps = steps[len(steps)-1:]
	}
	for _, st := range steps {
		if err := signal(pid, start, st.sig); err != nil {
			return "", fmt.Errorf("could not be sent %s: %w", st.name, err)
		}
		if waitExit(pid, start, signalGrace) {
			return st.name, nil
		}
	}
	return "", fmt.Errorf("survived %s for %s", steps[len(steps)-1].name, signalGrace)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
