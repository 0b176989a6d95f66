//go:build !windows

package containment

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/internal/supervise"
	"github.com/run-mcp/run-mcp/test/targets"
)

// TestHelperRunByHandSaysWhatItIs: the supervisor is entered through main
// (never an init function) and, run by hand without run-mcp's socket, says
// it is not a command instead of waiting for requests that never come.
func TestHelperRunByHandSaysWhatItIs(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	for _, args := range [][]string{supervise.Command("run-mcp")[1:], {supervise.Guard, supervise.ExecArg, "/bin/true", "true"}} {
		var stderr bytes.Buffer
		c := exec.Command(bin, args...)
		c.Stderr = &stderr
		err := c.Run()
		if code := exitCode(err); code != 64 {
			t.Errorf("run-mcp %q exited %d, want 64 (a usage error)\n%s", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "they are not commands") {
			t.Errorf("run-mcp %q says %q, want it to say it is not a command", args, stderr.String())
		}
	}
}

// TestAOneShotCommandKillsAStoppedSupervisor: a supervisor that stops
// answering (SIGSTOP) does not make a one-shot command wait for it: the
// command, interrupted (SIGTERM, as a user's Ctrl-C or an agent's shell
// giving up), stops its server, finds the supervisor silent, kills it and
// everything below it, and exits 143, leaving nothing.
func TestAOneShotCommandKillsAStoppedSupervisor(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pidDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"call", "slow", "seconds:=120"}, target(pidDir, everyKind...)...)...)
	serverPid, stderr := startConnected(t, c)
	pids := waitPids(t, pidDir, everyName...)
	sup := parentOf(t, serverPid)
	if argv := cmdline(t, sup); !slices.Contains(argv, supervise.Arg) {
		t.Fatalf("the server's parent (PID %d) runs %q, not run-mcp's supervisor", sup, argv)
	}
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	targets.KillAtCleanup(t, sup)
	deadline := time.Now().Add(patience)
	for !stopped(sup) {
		if time.Now().After(deadline) {
			t.Fatalf("the supervisor (PID %d) never stopped", sup)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	out := stderr() // to its end (bounded by patience), before Wait closes the pipe
	if code := exitCode(c.Wait()); code != 143 {
		t.Errorf("run-mcp exited %d after SIGTERM, want 143\n%s", code, out)
	}
	if !strings.Contains(out, "interrupted by SIGTERM") {
		t.Errorf("stderr does not say the command was interrupted:\n%s", out)
	}
	pids["supervisor"] = sup
	wantNoSurvivors(t, "a one-shot command whose supervisor was stopped", pids)
}

// stopped says every thread of pid is stopped (state T), from
// /proc/<pid>/task/*/stat: SIGSTOP reaches each thread in its own time.
func stopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
			return false
		}
	}
	return true
}
