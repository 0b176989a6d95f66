//go:build !windows

// Orphan checks signal pids directly (syscall.Kill), which Windows lacks.

package e2e

import (
	"bufio"
	"context"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startAndKill9 starts run-mcp with args, waits until it is connected to its
// target, kills run-mcp with SIGKILL (no chance to clean up) and returns the
// target's pid.
func startAndKill9(t *testing.T, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := command(t, ctx, args...)
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 1)
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := connected.FindStringSubmatch(sc.Text()); m != nil {
				pid, _ := strconv.Atoi(m[1])
				pids <- pid
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	var pid int
	select {
	case pid = <-pids:
	case <-time.After(patience):
		_ = c.Process.Kill()
		_ = c.Wait()
		t.Fatal("run-mcp never connected")
	}
	// The target is run-mcp's descendant (on Linux the child of its
	// supervisor), found the way ps would.
	if kids := descendants(c.Process.Pid); !slices.Contains(kids, pid) {
		t.Errorf("target pid %d is not among run-mcp's descendants %v", pid, kids)
	}
	if dead(pid) {
		t.Fatalf("the target %d is already dead before the kill", pid)
	}
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	for range lines {
	}
	return pid
}

// waitGone polls for pid to be dead for up to 5 s: a child that outlives
// run-mcp by more is an orphan.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !dead(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL) // do not leave it behind
			t.Fatalf("%s (pid %d) outlived run-mcp's kill -9 by 5 s: an orphan", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNoOrphanAfterKill9Demo(t *testing.T) {
	requireProc(t)
	t.Parallel()
	pid := startAndKill9(t, args([]string{"call", "slow", "seconds:=30"}, demo())...)
	waitGone(t, pid, "the demo server")
}

func TestNoOrphanAfterKill9Everything(t *testing.T) {
	requireProc(t)
	t.Parallel()
	target := everything(t)
	pid := startAndKill9(t, args([]string{"call", "trigger-long-running-operation", "duration:=30", "steps:=3"}, target)...)
	waitGone(t, pid, "server-everything")
}

// TestNoOrphanAfterKill9DemoIgnoringEOF: a server that would outlive its
// stdin must still die with run-mcp.
func TestNoOrphanAfterKill9DemoIgnoringEOF(t *testing.T) {
	requireProc(t)
	t.Parallel()
	pid := startAndKill9(t, args([]string{"call", "slow", "seconds:=30"}, demo("--ignore-stdin-eof"))...)
	waitGone(t, pid, "the demo server ignoring stdin EOF")
}

// TestIgnoresStdinEOF: a server that stays up after its stdin closes is
// stopped by run-mcp, which exits promptly and leaves nothing behind.
func TestIgnoresStdinEOF(t *testing.T) {
	requireProc(t)
	t.Parallel()
	r := run(t, args([]string{"list-tools"}, demo("--ignore-stdin-eof"))...)
	r.wantCode(t, 0)
	if names := r.toolNames(t); !slices.Contains(names, "echo") {
		t.Errorf("tools %q", names)
	}
	pid, _ := r.connectedLine(t)
	if !dead(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the server (pid %d) is still running after run-mcp exited\n%s", pid, r)
	}
	r.wantWithin(t, generous)
}

func TestEverythingIgnoresStdinEOF(t *testing.T) {
	requireProc(t)
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"list-tools"}, target)...)
	r.wantCode(t, 0)
	pid, _ := r.connectedLine(t)
	if !dead(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("server-everything (pid %d) is still running after run-mcp exited\n%s", pid, r)
	}
	r.wantWithin(t, generous)
}

// TestInterruptStopsTheServer: SIGINT, SIGTERM or SIGHUP on a one-shot call
// stops the server before run-mcp exits, with the code a shell gives a
// process the signal killed (128 + its number, as a sessioned call exits
// too) and a message in words that names the signal.
func TestInterruptStopsTheServer(t *testing.T) {
	requireProc(t)
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{
		{syscall.SIGINT, 130, "SIGINT (Ctrl-C)"},
		{syscall.SIGTERM, 143, "SIGTERM"},
		{syscall.SIGHUP, 129, "SIGHUP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			c := command(t, ctx, args([]string{"call", "slow", "seconds:=30"}, demo())...)
			stderr, err := c.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stderr)
			var pid int
			var all []string
			for sc.Scan() {
				all = append(all, sc.Text())
				if m := connected.FindStringSubmatch(sc.Text()); m != nil {
					pid, _ = strconv.Atoi(m[1])
					break
				}
			}
			if pid == 0 {
				_ = c.Process.Kill()
				_ = c.Wait()
				t.Fatalf("never connected: %q", all)
			}
			start := time.Now()
			_ = c.Process.Signal(tc.sig)
			for sc.Scan() {
				all = append(all, sc.Text())
			}
			err = c.Wait()
			took := time.Since(start)
			if code := c.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("a call interrupted by %v exited %d (%v), want %d", tc.sig, code, err, tc.code)
			}
			if !dead(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("the server (pid %d) outlived the interrupted run-mcp", pid)
			}
			if took > generous {
				t.Errorf("run-mcp took %s to exit after %v", took, tc.sig)
			}
			text := strings.Join(all, "\n")
			if !strings.Contains(text, "interrupted by "+tc.name) || !strings.Contains(text, "the server was stopped") {
				t.Errorf("stderr after %v does not say so in words: %q", tc.sig, text)
			}
			if strings.Contains(text, "context canceled") {
				t.Errorf("stderr after %v speaks of a Go context: %q", tc.sig, text)
			}
		})
	}
}
