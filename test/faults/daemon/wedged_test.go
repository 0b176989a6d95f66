//go:build !windows

package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// bounded is the longest a command against a stopped daemon may take here:
// its budget (a second each for the call and a listing, or nothing for
// stderr) plus run-mcp's margin, with room for a loaded machine. Before the
// budgets, the call took 46 s and stderr 5 min 45 s.
const bounded = 40 * time.Second

// TestAStoppedDaemonBoundsEveryCommand: a daemon that takes requests and
// never answers them (SIGSTOP) fails each command, within the command's own
// budget plus a margin (it sees a stopped daemon at once), saying to
// suspect the daemon and what still works
// (its log, close-session), never advising `stderr --session`, which cannot
// reach it either. close-session then kills it, its server and its
// supervisor, and leaves no record or socket.
func TestAStoppedDaemonBoundsEveryCommand(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	s := newSession(t, "wedged")
	s.start()
	rec := s.mustRecord()
	sup := parentOf(rec.Pid)
	if sup <= 1 {
		t.Fatalf("the server (PID %d) has no supervisor parent", rec.Pid)
	}
	if err := syscall.Kill(rec.DaemonPid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	targets.KillAtCleanup(t, rec.DaemonPid)
	eventually(t, "the daemon to be stopped", func() bool { return allThreadsStopped(rec.DaemonPid) })

	log := filepath.Join(s.dir(), "wedged.log")
	for _, args := range [][]string{
		{"call", "echo", "message=x", "--timeout", "1000", "--request-timeout", "1000", "--session", "wedged"},
		{"stderr", "--session", "wedged"},
		{"list-tools", "--request-timeout", "1000", "--session", "wedged"},
	} {
		r := s.runWithin(bounded, args...)
		if r.code != 1 {
			t.Errorf("a command against a stopped daemon exits 1 (a daemon error):\n%s", r)
		}
		for _, want := range []string{fmt.Sprintf("(PID %d) is stopped", rec.DaemonPid), "Suspect the daemon", "close-session wedged", log, fmt.Sprintf("kill -CONT %d", rec.DaemonPid)} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the message does not say %q:\n%s", want, r)
			}
		}
		if strings.Contains(r.stderr, "stderr --session wedged shows") {
			t.Errorf("the message advises stderr --session, which cannot reach a stopped daemon:\n%s", r)
		}
	}

	r := s.runWithin(bounded, "close-session", "wedged")
	if r.code != 0 || !strings.Contains(r.stdout, `"stopped_by": "SIGKILL"`) {
		t.Fatalf("close-session of a stopped daemon must kill it:\n%s", r)
	}
	for what, pid := range map[string]int{"daemon": rec.DaemonPid, "server": rec.Pid, "supervisor": sup} {
		eventually(t, fmt.Sprintf("the %s (PID %d) to be gone after close-session", what, pid), func() bool { return !alive(pid) })
	}
	if _, err := os.Lstat(rec.Socket); err == nil {
		t.Errorf("close-session left the socket %s", rec.Socket)
	}
	if _, err := s.record(); err == nil {
		t.Error("close-session left the record")
	}
}

// parentOf is a process's parent pid (0 when it is gone).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
