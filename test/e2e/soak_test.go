package e2e

import "testing"

// A session that closed itself after --idle-timeout is explained by the next
// call, from its daemon's log: before, the call said only that the session
// "is not running", as if it had never been started.
func TestSessionClosedByIdleTimeoutIsExplained(t *testing.T) {
	t.Parallel()
	s := newSession(t, "dozed")
	s.run(args([]string{"list-tools", "--session", "dozed", "--idle-timeout", "0.01"}, demo())...).wantCode(t, 0)
	rows := s.list()
	if len(rows) != 1 {
		t.Fatalf("sessions: %+v", rows)
	}
	waitGone(t, rows[0].DaemonPid, "the daemon of an idle session")
	r := s.run("call", "echo", "message=x", "--session", "dozed")
	r.wantCode(t, 64)
	r.wantStderr(t, `Session "dozed" is not running: it closed after 600ms without a command (--idle-timeout)`,
		"dozed.log", "run-mcp call --session dozed -- ")
}
