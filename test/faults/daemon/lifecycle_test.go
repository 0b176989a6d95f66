//go:build !windows

package daemon

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A daemon stopped with SIGSTOP is alive: sessions lists it (never prunes
// it), and close-session still leaves neither the daemon nor its server.
func TestAStoppedDaemonIsListedThenClosed(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	s := newSession(t, "frozen")
	s.start()
	rec := s.mustRecord()
	if err := syscall.Kill(rec.DaemonPid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(rec.DaemonPid, syscall.SIGCONT) })
	// SIGSTOP is delivered asynchronously: wait until every thread of the
	// daemon is stopped, or a ping sent meanwhile can still be answered.
	eventually(t, "the daemon to be stopped", func() bool { return allThreadsStopped(rec.DaemonPid) })
	r := s.run("sessions")
	var rows []struct {
		Name  string `json:"name"`
		Phase string `json:"phase"`
		Note  string `json:"note"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) != 1 || rows[0].Name != "frozen" {
		t.Fatalf("a stopped daemon must stay listed:\n%s", r)
	}
	if !strings.Contains(rows[0].Note, "alive but did not answer") {
		t.Errorf("the row should say the daemon is not answering: %+v", rows[0])
	}
	if _, err := os.Stat(filepath.Join(s.dir(), "frozen.json")); err != nil {
		t.Fatalf("sessions pruned a live daemon's record: %v", err)
	}
	r = s.run("close-session", "frozen")
	if r.code != 0 || !strings.Contains(r.stdout, `"stopped_by": "SIGKILL"`) {
		t.Fatalf("close-session of a stopped daemon:\n%s", r)
	}
	for _, pid := range []int{rec.DaemonPid, rec.Pid} {
		eventually(t, fmt.Sprintf("PID %d to be gone after close-session", pid), func() bool { return !alive(pid) })
	}
	if r := s.run("sessions"); strings.Contains(r.stdout, "frozen") {
		t.Fatalf("a closed session is still listed:\n%s", r)
	}
}

// A daemon that cannot accept (out of file descriptors) backs off, logs it
// once, and serves again when descriptors are free.
func TestAFailingAcceptBacksOffAndRecovers(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	s := newSession(t, "starved")
	s.start()
	rec := s.mustRecord()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", rec.DaemonPid))
	if err != nil {
		t.Fatal(err)
	}
	old, err := setNofile(rec.DaemonPid, uint64(len(fds)+4))
	if err != nil {
		t.Skipf("cannot lower the daemon's RLIMIT_NOFILE with prlimit(2): %v", err)
	}
	t.Cleanup(func() { _, _ = setNofile(rec.DaemonPid, old) })
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	eventually(t, "the daemon to log a failed accept", func() bool {
		if c, err := net.Dial("unix", rec.Socket); err == nil {
			held = append(held, c)
		}
		return strings.Contains(s.log(), "accept failed") || len(held) > 200
	})
	if !strings.Contains(s.log(), "backing off") {
		t.Fatalf("no back-off line in the daemon log after %d connections:\n%s", len(held), s.log())
	}
	for _, c := range held {
		c.Close()
	}
	held = nil
	s.echo("fed again")
	if !alive(rec.DaemonPid) {
		t.Fatal("the daemon died")
	}
	eventually(t, "the recovery line", func() bool { return strings.Contains(s.log(), "accepting again") })
	// One line per episode, not per failed accept: each episode opens with
	// one "accept failed" line and closes with one "accepting again". (A
	// slow machine can see two episodes: a held connection's handler gives
	// up, frees a descriptor, and the next accept fails again.)
	log := s.log()
	if failed, again := strings.Count(log, "accept failed"), strings.Count(log, "accepting again"); failed != again {
		t.Errorf("want one line per episode: %d episode(s) opened, %d closed:\n%s", failed, again, log)
	}
}

// Ctrl-C on a sessioned call exits 130 and cancels the call on the target;
// SIGTERM exits 143 and SIGHUP 129, as a one-shot call does.
func TestCtrlCCancelsTheCallOnTheTarget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		code int
		args []string
	}{
		{"int", syscall.SIGINT, 130, []string{"seconds:=60", "steps:=60"}},
		{"term", syscall.SIGTERM, 143, []string{"seconds:=60", "steps:=60"}},
		{"hup", syscall.SIGHUP, 129, []string{"seconds:=60", "steps:=60"}},
		// key=value words alone, the quickest shape of a warm call.
		{"shorthand", syscall.SIGINT, 130, []string{"seconds=60", "steps=60"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, "patient")
			s.start()
			c := s.command(t.Context(), append(append([]string{"call", "slow"}, tc.args...), "--session", "patient")...)
			var errb strings.Builder
			c.Stderr = &errb
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the slow call to reach the server", func() bool {
				return strings.Contains(s.run("stderr", "--session", "patient").stdout, "slow: started")
			})
			if err := c.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_ = c.Wait()
			if got := c.ProcessState.ExitCode(); got != tc.code {
				t.Fatalf("exit %d (%v) after %v, want %d; stderr:\n%s", got, c.ProcessState, tc.sig, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), "cancelled") {
				t.Errorf("the client should say the call was cancelled: %s", errb.String())
			}
			eventually(t, "the target to log the cancellation", func() bool {
				return strings.Contains(s.run("stderr", "--session", "patient").stdout, "slow: cancelled at step")
			})
			t.Logf("client exited %v after the signal", time.Since(start).Round(time.Millisecond))
			s.echo("after ctrl-c")
		})
	}
}

// --idle-timeout that is not a finite number of minutes is a usage error
// before anything starts; 0 on a sessioned call clears the timeout.
func TestIdleTimeoutValues(t *testing.T) {
	t.Parallel()
	s := newSession(t, "idle")
	for _, v := range []string{"NaN", "inf", "-1", "soon"} {
		r := s.run("call", "echo", "message=x", "--session", "idle", "--idle-timeout", v, "--", bin, "demo-server")
		if r.code != 64 || !strings.Contains(r.stderr, "--idle-timeout must be a positive number of minutes") {
			t.Errorf("--idle-timeout %s:\n%s", v, r)
		}
	}
	if _, err := s.record(); err == nil {
		t.Fatal("a refused --idle-timeout started a session")
	}
	s.start()
	r := s.run("call", "echo", "message=x", "--session", "idle", "--idle-timeout", "5")
	if r.code != 0 {
		t.Fatal(r)
	}
	if !strings.Contains(s.run("sessions").stdout, `"idle_timeout": "5m"`) {
		t.Fatal("the idle timeout was not set")
	}
	s.run("call", "echo", "message=x", "--session", "idle", "--idle-timeout", "0")
	if r := s.run("sessions"); !strings.Contains(r.stdout, `"idle_timeout": "none"`) {
		t.Fatalf("--idle-timeout 0 must clear it:\n%s", r)
	}
}

// allThreadsStopped tells whether every thread of pid is in state T
// (stopped), from /proc/<pid>/task/*/stat.
func allThreadsStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// The state follows the command name, which is in parentheses.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
			return false
		}
	}
	return true
}
