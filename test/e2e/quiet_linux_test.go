package e2e

import (
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// A session kept for later costs nothing while nobody calls it: its daemon
// waits for a command, the end of its idle timeout or a change to its
// socket's directory (inotify), never for a clock, and its supervisor below
// it sleeps too. (The daemon was woken every second to look at its socket.)
func TestAWaitingSessionSleeps(t *testing.T) {
	t.Parallel()
	s := newSession(t, "quiet")
	s.run(args([]string{"call", "echo", "message=hi", "--session", "quiet", "--idle-timeout", "30"}, demo())...).wantCode(t, 0)
	rows := s.list()
	if len(rows) != 1 {
		t.Fatalf("sessions: %+v", rows)
	}
	targets.Quiet(t, rows[0].DaemonPid, "the session's daemon and its supervisor")
}
