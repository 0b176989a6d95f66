//go:build !windows

// Sessions over time. Built where session_test.go is, whose helpers these
// tests use.

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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

// A session whose socket was removed under it (a temp-directory cleaner,
// after the session lived long) is stopped, not orphaned: by its daemon as
// soon as the file goes (inotify on Linux; within a second elsewhere), or by
// the next command if that comes first. Either way the user is told: by the
// command that stopped it, or by the next command naming the session. Before the fix
// the next call judged the daemon gone by the missing socket alone, removed
// its record and said so, and the daemon and its server ran on with nothing
// left to stop them (close-session: "no session named ... is running").
func TestSessionWhoseSocketWasRemovedIsStopped(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"call", "sessions", "wait"} {
		name := "unreachable-" + how
		s := newSession(t, name)
		s.run(args([]string{"list-tools", "--session", name}, demo())...).wantCode(t, 0)
		rows := s.list()
		if len(rows) != 1 {
			t.Fatalf("sessions: %+v", rows)
		}
		_, socket := sessionFiles(t, s, name)
		if err := os.Remove(socket); err != nil {
			t.Fatal(err)
		}
		// The daemon notices by itself ("wait"); a command right after the
		// removal may come first and stop it.
		var r result
		switch how {
		case "call":
			r = s.run("call", "echo", "message=x", "--session", name)
		case "sessions":
			// A listing says nothing of a session that stopped by itself
			// before it looked: the next command naming it says why.
			if r = s.run("sessions"); !strings.Contains(r.stderr, "still ran") && !strings.Contains(r.stderr, "stopped session") {
				waitGone(t, rows[0].DaemonPid, "the daemon whose socket was removed")
				r = s.run("call", "echo", "message=x", "--session", name)
			}
		case "wait":
			waitGone(t, rows[0].DaemonPid, "the daemon whose socket was removed")
			r = s.run("call", "echo", "message=x", "--session", name)
		}
		if !strings.Contains(r.stderr, "(PID "+strconv.Itoa(rows[0].DaemonPid)+") still ran") && // the command stopped it
			!strings.Contains(r.stderr, "stopped session") &&
			!strings.Contains(r.stderr, "because its socket was removed") { // it stopped by itself
			t.Errorf("%s after the socket was removed: the output does not say what happened:\n%s", how, r)
		}
		waitGone(t, rows[0].DaemonPid, "the daemon whose socket was removed")
		waitGone(t, rows[0].Pid, "the server of the daemon whose socket was removed")
		if rows := s.list(); len(rows) != 0 {
			t.Fatalf("%s: the unreachable session is still listed: %+v", how, rows)
		}
	}
}

// When the temp-directory cleaner took both the socket and the record, a new
// session of the same name starts; the old daemon then stops by itself and
// must leave the new one's socket and record alone (Go's listener unlinks
// its path on Close, which was the new daemon's socket by then). The record
// goes first: the daemon stops as soon as its socket goes (and removes its
// own record then), so the other order would race it.
func TestOrphanedDaemonLeavesItsSuccessorAlone(t *testing.T) {
	t.Parallel()
	s := newSession(t, "reborn")
	s.run(args([]string{"list-tools", "--session", "reborn"}, demo())...).wantCode(t, 0)
	old := s.list()
	if len(old) != 1 {
		t.Fatalf("sessions: %+v", old)
	}
	record, socket := sessionFiles(t, s, "reborn")
	for _, p := range []string{record, socket} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	s.run(args([]string{"call", "echo", "message=first", "--session", "reborn"}, demo())...).wantCode(t, 0)
	waitGone(t, old[0].DaemonPid, "the daemon whose socket and record were removed")
	r := s.run("call", "echo", "message=second", "--session", "reborn")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "echo: second") {
		t.Fatalf("the new session after the old daemon stopped:\n%s", r)
	}
}

// sessionFiles returns the paths of session name's record and of the socket
// it names.
func sessionFiles(t *testing.T, s *session, name string) (record, socket string) {
	t.Helper()
	recs, _ := filepath.Glob(filepath.Join(s.tmp, "run-mcp-*", "sessions", name+".json"))
	if len(recs) != 1 {
		t.Fatalf("the session's record under %s: %v", s.tmp, recs)
	}
	var rec struct {
		Socket string `json:"socket"`
	}
	if b, err := os.ReadFile(recs[0]); err != nil || json.Unmarshal(b, &rec) != nil || rec.Socket == "" {
		t.Fatalf("read the record %s: %v", recs[0], err)
	}
	return recs[0], rec.Socket
}
