//go:build !windows

package containment

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// oneShotKilled runs `run-mcp call slow` against a fixture with every kind
// of descendant, sends sig to run-mcp once all are running, and returns
// their pids after run-mcp has exited.
func oneShotKilled(t *testing.T, sig syscall.Signal, flags ...string) (map[string]int, int, string) {
	t.Helper()
	pidDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"call", "slow", "seconds:=120"}, target(pidDir, flags...)...)...)
	targetPid, stderr := startConnected(t, c)
	pids := waitPids(t, pidDir, everyName...)
	if pids["server"] != targetPid {
		t.Errorf("run-mcp says the server is PID %d; the server says it is %d", targetPid, pids["server"])
	}
	if err := c.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	out := stderr() // to its end, before Wait closes the pipe
	code := exitCode(c.Wait())
	return pids, code, out
}

func TestOneShotKilledWithSIGKILL(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pids, _, _ := oneShotKilled(t, syscall.SIGKILL, everyKind...)
	wantNoSurvivors(t, "kill -9 of a one-shot call", pids)
}

// TestOneShotHungUp: an agent's shell that gives up on a command sends
// SIGHUP; run-mcp stops the server (which here ignores SIGTERM and its stdin
// closing, so it takes the SIGKILL) and exits 129, as a shell reports a
// process SIGHUP killed.
func TestOneShotHungUp(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pids, code, stderr := oneShotKilled(t, syscall.SIGHUP, append([]string{"--ignore-term"}, everyKind...)...)
	if code != 129 {
		t.Errorf("run-mcp exited %d after SIGHUP, want 129 (128 + SIGHUP)\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "interrupted by SIGHUP") || !strings.Contains(stderr, "the server was stopped") {
		t.Errorf("stderr after SIGHUP does not say the server was stopped:\n%s", stderr)
	}
	wantNoSurvivors(t, "SIGHUP to a one-shot call", pids)
}

// TestOneShotNormalExit: a command that finishes leaves nothing either,
// not even what left the server's session.
func TestOneShotNormalExit(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pidDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"call", "ping"}, target(pidDir, everyKind...)...)...)
	out, err := c.Output()
	if code := exitCode(err); code != 0 || !strings.Contains(string(out), "pong") {
		t.Fatalf("run-mcp call ping exited %d with %q: %v", code, out, err)
	}
	wantNoSurvivors(t, "a one-shot call that finished", waitPids(t, pidDir, everyName...))
}

// TestAgentServerKilledWithSIGKILL drives the agent server as an agent's
// MCP client does, connects the fixture, and kills run-mcp with -9.
func TestAgentServerKilledWithSIGKILL(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	a := startAgent(t)
	pids := a.connect(t, "default")
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.c.Close() // waits for run-mcp, now dead
	wantNoSurvivors(t, "kill -9 of the agent server", pids)
}

// TestSessionDaemonKilledWithSIGKILL starts a session with a sessioned
// call, finds its daemon in `run-mcp sessions` and kills it with -9.
func TestSessionDaemonKilledWithSIGKILL(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	tmp, pidDir := t.TempDir(), t.TempDir()
	out, err := command(t, tmp, append([]string{"list-tools", "--session", "contain"}, target(pidDir, everyKind...)...)...).Output()
	if err != nil {
		t.Fatalf("the sessioned call failed: %v\n%s", err, out)
	}
	pids := waitPids(t, pidDir, everyName...)
	out, err = command(t, tmp, "sessions").Output()
	if err != nil {
		t.Fatalf("run-mcp sessions: %v\n%s", err, out)
	}
	var rows []struct {
		Name      string `json:"name"`
		Pid       int    `json:"pid"`
		DaemonPid int    `json:"daemon_pid"`
	}
	if err := json.Unmarshal(out, &rows); err != nil || len(rows) != 1 || rows[0].DaemonPid <= 0 {
		t.Fatalf("run-mcp sessions: want one session with its daemon's pid, got %s (%v)", out, err)
	}
	if rows[0].Pid != pids["server"] {
		t.Errorf("sessions says the server is PID %d; the server says it is %d", rows[0].Pid, pids["server"])
	}
	daemon := rows[0].DaemonPid
	targets.KillAtCleanup(t, daemon) // if the test fails before the kill
	if err := syscall.Kill(daemon, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 the session daemon %d: %v", daemon, err)
	}
	wantNoSurvivors(t, "kill -9 of the session daemon", pids)
}

// TestServerEndsWhileRunMCPLives: when the server dies while run-mcp carries
// on (a crash under a session daemon), what it started goes with it.
func TestServerEndsWhileRunMCPLives(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	tmp, pidDir := t.TempDir(), t.TempDir()
	out, err := command(t, tmp, append([]string{"list-tools", "--session", "crash"}, target(pidDir, everyKind...)...)...).Output()
	if err != nil {
		t.Fatalf("the sessioned call failed: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = command(t, tmp, "close-session", "crash").Run() })
	pids := waitPids(t, pidDir, everyName...)
	if err := syscall.Kill(pids["server"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	server := map[string]int{"server": pids["server"]}
	if left := survivors(t, server); len(left) > 0 {
		t.Fatalf("the server outlived SIGKILL: %v", left)
	}
	delete(pids, "server")
	wantNoSurvivors(t, "the server's own crash, run-mcp still running", pids)
	// run-mcp tells the crash as the server's own, not as something it did.
	deadline := time.Now().Add(patience)
	for {
		out, _ = command(t, tmp, "list-tools", "--session", "crash").CombinedOutput()
		if strings.Contains(string(out), "killed by SIGKILL") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(string(out), "killed by SIGKILL") {
		t.Errorf("after the crash, a sessioned call does not say the server was killed by SIGKILL:\n%s", out)
	}
}
