package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/run-mcp/run-mcp/cli/session"
)

// probeWait is how long a client gives its daemon to answer a ping once a
// request went unanswered: a ping asks the server nothing, so a daemon
// that works answers it at once.
const probeWait = 2 * time.Second

// silentDaemon explains a daemon that took the request and did not answer
// within the command's budget plus session.Margin. The daemon answers every
// request to the server within that request's own budget, so this is
// rarely the server: a ping (which the daemon answers from its own state)
// tells a daemon that is stopped or stuck (suspect the daemon; no command
// reaches it, `stderr --session` neither, so the advice is its log and
// close-session, which kills it if it must) from one that works and is
// still busy with the command (suspect the server). The command's hang-up
// has cancelled it in a daemon that works.
func silentDaemon(dir string, rec *session.Record, after time.Duration, req *session.Request) error {
	name, log := rec.Name, session.LogPath(dir, rec.Name)
	budget, what := req.Budget(rec.Timeouts())
	within := after.Round(100 * time.Millisecond).String()
	if budget > 0 {
		within += " (" + what + ", and " + session.Margin.String() + " for the daemon's own work)"
	}
	if rec.DaemonPid > 0 && session.Stopped(rec.DaemonPid) {
		return exitf(ExitToolError, "the session daemon for %q (PID %d) is stopped (SIGSTOP, Ctrl-Z or a debugger): it took the request and cannot answer until it is continued. "+
			"Suspect the daemon, not the server. No command reaches the session meanwhile, run-mcp stderr --session %s neither: kill -CONT %d lets it go on, "+
			"and run-mcp close-session %s stops it and its server. Its log is %s",
			name, rec.DaemonPid, name, rec.DaemonPid, name, log)
	}
	ping := session.Request{Op: session.OpPing, Session: name}
	if _, err := session.Ask(context.Background(), rec.Socket, ping, probeWait); err != nil {
		return exitf(ExitToolError, "the session daemon for %q%s took the request but did not answer within %s, and it does not answer a ping either: "+
			"suspect the daemon, not the server. No command reaches the session while the daemon is stuck, run-mcp stderr --session %s neither. "+
			"Its log is %s; run-mcp close-session %s stops it (killing it if it must) and its server",
			name, pidNote(rec.DaemonPid), within, name, log, name)
	}
	return exitf(ExitToolError, "the session daemon for %q took the request but did not finish it within %s, though it answers a ping: "+
		"suspect the server, slow over several requests or stuck. The command was cancelled in the session, which keeps running. "+
		"run-mcp stderr --session %s shows what the server wrote; raise --timeout or --request-timeout if it is slow but healthy. The daemon's log is %s",
		name, within, name, log)
}

// pidNote is " (PID n)" for a known pid.
func pidNote(pid int) string {
	if pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" (PID %d)", pid)
}
