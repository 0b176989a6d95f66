//go:build !windows

package deadline

import (
	"strings"
	"testing"
)

// A sessioned command against a server that stops answering gets the
// daemon's own timeout message (the real cause), never the client's
// "the daemon did not answer"; the session survives it.
func TestSessionedCommandsGetTheDaemonsTimeout(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	t.Cleanup(func() {
		run(t, tmp, "close-session", "slow")
		run(t, tmp, "close-session", "calls")
	})
	// The first tools/list (the session's start listing) is answered, every
	// later one is not.
	r := run(t, tmp, append([]string{"list-tools", "--session", "slow", "--request-timeout", budget},
		stuckServer("--never", "tools/list", "--answer-first", "1")...)...)
	if r.code != 1 {
		t.Errorf("a sessioned timeout exits 1 (3.0), got %d\n%s", r.code, r)
	}
	wantAll(t, "sessioned list-tools", r.stderr, "tools/list got no answer within 1500 ms", "budget for housekeeping requests", "stuck: got tools/list")
	if strings.Contains(r.stderr, "did not answer within") || strings.Contains(r.stderr, "is gone") {
		t.Errorf("the client blamed the daemon instead of printing its answer:\n%s", r)
	}
	// The session is still there, and its stderr shows the unanswered request.
	r = run(t, tmp, "stderr", "--session", "slow")
	if r.code != 0 {
		t.Fatalf("the session must survive the timeout:\n%s", r)
	}
	wantAll(t, "stderr after the timeout", r.stdout+r.stderr, "stuck: got tools/list")

	// Calls keep 3.0's words and exit code on a session.
	r = run(t, tmp, append([]string{"call", "echo", "--session", "calls", "--timeout", budget}, stuckServer("--never", "tools/call")...)...)
	if r.code != 1 {
		t.Errorf("a sessioned call timeout exits 1, got %d\n%s", r.code, r)
	}
	wantAll(t, "sessioned call", r.stderr, "timed out", "tools/call got no answer within its 1500 ms budget", "stuck: got tools/call")
}

// A session whose server never lists what it offers fails to start within
// the command's own budget, with the reason, and leaves no session.
func TestSessionStartBoundedByRequestTimeout(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	t.Cleanup(func() { run(t, tmp, "close-session", "never") })
	r := run(t, tmp, append([]string{"list-tools", "--session", "never", "--request-timeout", budget},
		stuckServer("--never", "tools/list")...)...)
	if r.code != 69 {
		t.Errorf("a session that cannot start exits 69, got %d\n%s", r.code, r)
	}
	wantAll(t, "session start", r.stderr, "failed to list what it offers", "tools/list got no answer within 1500 ms")
	if rows := run(t, tmp, "sessions"); strings.Contains(rows.stdout, `"never"`) {
		t.Errorf("a failed start must leave no session:\n%s", rows)
	}
}
