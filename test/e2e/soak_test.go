package e2e

import (
	"strings"
	"testing"
	"time"
)

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

// A call still running when its session is closed from another shell is
// told so. Before the fix it said "the client cancelled the call", which the
// person who ran it had not done.
func TestSessionClosedDuringACallSaysSo(t *testing.T) {
	t.Parallel()
	s := newSession(t, "closing")
	s.run(args([]string{"list-tools", "--session", "closing"}, demo())...).wantCode(t, 0)
	done := make(chan result, 1)
	go func() { done <- s.run("call", "slow", "seconds:=20", "steps:=1", "--session", "closing") }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.run("stderr", "--session", "closing").stdout, "slow: started") {
		if time.Now().After(deadline) {
			t.Fatal("the slow call never reached the server")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.run("close-session", "closing").wantCode(t, 0)
	r := <-done
	r.wantCode(t, 1)
	r.wantStderr(t, "CANCELLED: the session was closed (close-session) while the call ran")
}
