//go:build !windows

package containment

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// TestOneShotServerRunsUnderASpareSupervisor: a one-shot command's server is
// started by the supervisor run-mcp started during its own start (argv: the
// binary and supervise.Arg alone, no target), and that supervisor contains
// everything the server started as any other does when run-mcp gets -9.
func TestOneShotServerRunsUnderASpareSupervisor(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pidDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"call", "slow", "seconds:=120"}, target(pidDir, everyKind...)...)...)
	server, _ := startConnected(t, c)
	pids := waitPids(t, pidDir, everyName...)
	sup := parentOf(t, server)
	argv := cmdline(t, sup)
	if len(argv) != 2 || argv[1] != supervise.Arg {
		t.Errorf("the server's parent (PID %d) runs %q, want run-mcp's spare supervisor (%q alone)", sup, argv, supervise.Arg)
	}
	if got := parentOf(t, sup); got != c.Process.Pid {
		t.Errorf("the supervisor's parent is PID %d, want run-mcp (PID %d)", got, c.Process.Pid)
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	wantNoSurvivors(t, "kill -9 of a one-shot call under a spare supervisor", pids)
}

// parentOf reads pid's parent from /proc/<pid>/stat (the field after the
// state, which follows the command name in parentheses).
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("read the stat of PID %d: %v", pid, err)
	}
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("the stat of PID %d has no parent: %q", pid, b)
	}
	return ppid
}

func cmdline(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatalf("read the command line of PID %d: %v", pid, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// TestEarlyListingServerIsContained: a listing with nothing but its target
// after the subcommand has its server handed to the spare during run-mcp's
// own start (internal/prespawn). Killed with -9 while that server has not
// even answered the handshake, run-mcp leaves nothing of it behind.
func TestEarlyListingServerIsContained(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	pidDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"list-tools"}, target(pidDir, append([]string{"--delay-serve", "120s"}, everyKind...)...)...)...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPids(t, pidDir, everyName...)
	sup := parentOf(t, pids["server"])
	if argv := cmdline(t, sup); len(argv) != 2 || argv[1] != supervise.Arg {
		t.Errorf("the server's parent (PID %d) runs %q, want run-mcp's spare supervisor (%q alone)", sup, argv, supervise.Arg)
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	wantNoSurvivors(t, "kill -9 of a one-shot listing whose server was started early", pids)
}

// TestEarlyListingStartsItsServerOnce: the server handed over early is the
// one the listing uses. Were the spawn to refuse it (a target it resolved
// differently), the server would be started twice, the first one killed:
// a server's start-up side effects would happen twice.
func TestEarlyListingStartsItsServerOnce(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	c := command(t, t.TempDir(), "list-tools", "--", "/bin/sh", "-c", `echo started >> "$0"; exec "$1" demo-server`, starts, bin)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("list-tools: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"name": "echo"`) {
		t.Errorf("list-tools printed no echo tool:\n%s", out)
	}
	b, err := os.ReadFile(starts)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "started\n"); n != 1 {
		t.Errorf("the server was started %d times, want once", n)
	}
}
