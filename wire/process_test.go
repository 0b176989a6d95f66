package wire

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newSpawner returns a Spawner closed when the test ends, after every
// process the test started (cleanups run last-registered first).
func newSpawner(t *testing.T) *Spawner {
	t.Helper()
	sp := NewSpawner()
	t.Cleanup(sp.Close)
	return sp
}

// startSh starts `sh -c script` and stops it when the test ends.
func startSh(t *testing.T, sp *Spawner, script string) *Process {
	t.Helper()
	p, err := Start(sp, Spec{Command: "sh", Args: []string{"-c", script}})
	if err != nil {
		t.Fatalf("Start(sh -c %q): %v", script, err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

// stderrText is the whole kept stderr, one line each.
func stderrText(p *Process) string { return strings.Join(p.Stderr().Since(0).Render(false), "\n") }

// waitStderr waits until the process has written a stderr line containing s.
func waitStderr(t *testing.T, p *Process, s string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !strings.Contains(stderrText(p), s) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %q on stderr; have %q", s, stderrText(p))
		}
		select {
		case <-p.Stderr().Changed():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stopBounded runs Stop and fails if it does not return within patience: a
// hang is the bug, the exact duration is for benchmarks.
func stopBounded(t *testing.T, p *Process) Exit {
	t.Helper()
	got := make(chan Exit, 1)
	go func() { got <- p.Stop() }()
	select {
	case e := <-got:
		return e
	case <-time.After(patience):
		t.Fatal("Stop did not return")
		return Exit{}
	}
}

// dead says whether pid is gone or a zombie (killed, awaiting its reaper).
func dead(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !dead(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessExitCodeAndLastWords(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `echo "Error: Cannot find module './db-config.js'" >&2; echo "    at loadConfig" >&2; exit 3`)
	if p.Pid() <= 0 || p.StartedAt.IsZero() {
		t.Errorf("Pid %d, StartedAt %v", p.Pid(), p.StartedAt)
	}
	waitClosed(t, "the process to end", p.Done())
	e, ok := p.Exit()
	if !ok || e.Code != 3 || e.Signal != "" || e.StoppedByUs {
		t.Fatalf("Exit() = %+v, %v; want code 3, not stopped by us", e, ok)
	}
	if got := e.Sentence(); got != "The server exited with code 3." {
		t.Errorf("Sentence() = %q", got)
	}
	// Done means drained: the last words are there.
	lines := p.Stderr().Since(0).Lines
	if len(lines) != 2 || lines[0].Seq != 1 || lines[0].Text != "Error: Cannot find module './db-config.js'" || lines[1].Text != "    at loadConfig" {
		t.Errorf("stderr = %+v", lines)
	}
	// Stopping a process that already ended does not rewrite how it ended.
	if e2 := stopBounded(t, p); e2 != e {
		t.Errorf("Stop() after exit = %+v, want %+v", e2, e)
	}
}

func TestProcessChoseToStop(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `exit 0`)
	waitClosed(t, "the process to end", p.Done())
	e, _ := p.Exit()
	if got := e.Sentence(); got != "The server exited with code 0 (it chose to stop)." {
		t.Errorf("Sentence() = %q", got)
	}
}

func TestProcessKilledBySIGSEGV(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `echo "about to segfault" >&2; kill -SEGV $$`)
	waitClosed(t, "the process to end", p.Done())
	e, _ := p.Exit()
	if e.Signal != "SIGSEGV" || e.Code != -1 || e.StoppedByUs {
		t.Fatalf("Exit() = %+v, want SIGSEGV", e)
	}
	if got := e.Sentence(); got != "The server was killed by SIGSEGV." {
		t.Errorf("Sentence() = %q", got)
	}
	if !strings.Contains(stderrText(p), "about to segfault") {
		t.Errorf("stderr = %q", stderrText(p))
	}
}

func TestProcessStopClosesStdin(t *testing.T) {
	sp := newSpawner(t)
	p, err := Start(sp, Spec{Command: "cat"}) // exits at stdin EOF
	if err != nil {
		t.Fatal(err)
	}
	e := stopBounded(t, p)
	if e.Code != 0 || e.Signal != "" || !e.StoppedByUs {
		t.Fatalf("Stop() = %+v, want code 0 stopped by run-mcp", e)
	}
	if got := e.Sentence(); got != "The server was stopped by run-mcp and exited with code 0." {
		t.Errorf("Sentence() = %q", got)
	}
	if e2 := p.Stop(); e2 != e {
		t.Errorf("second Stop() = %+v, want %+v", e2, e)
	}
}

func TestProcessStopSendsSIGTERMWhenStdinIsIgnored(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `echo ready >&2; while :; do sleep 0.05; done`)
	waitStderr(t, p, "ready")
	e := stopBounded(t, p)
	if e.Signal != "SIGTERM" || !e.StoppedByUs {
		t.Fatalf("Stop() = %+v, want SIGTERM by run-mcp", e)
	}
	if got := e.Sentence(); got != "The server was stopped by run-mcp (SIGTERM)." {
		t.Errorf("Sentence() = %q", got)
	}
}

func TestProcessIgnoringSIGTERMIsKilled(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `trap "" TERM; echo ready >&2; while :; do sleep 0.05; done`)
	waitStderr(t, p, "ready")
	e := stopBounded(t, p)
	if e.Signal != "SIGKILL" || !e.StoppedByUs {
		t.Fatalf("Stop() = %+v, want SIGKILL by run-mcp", e)
	}
	if got := e.Sentence(); got != "The server was stopped by run-mcp (SIGKILL)." {
		t.Errorf("Sentence() = %q", got)
	}
	waitDead(t, p.Pid())
}

func TestProcessTrappingSIGTERMAndNeverExitingStops(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `trap 'echo "got TERM, carrying on" >&2' TERM; echo ready >&2; while :; do sleep 0.05; done`)
	waitStderr(t, p, "ready")
	e := stopBounded(t, p)
	if e.Signal != "SIGKILL" || !e.StoppedByUs {
		t.Fatalf("Stop() = %+v, want SIGKILL by run-mcp", e)
	}
	if !strings.Contains(stderrText(p), "got TERM, carrying on") {
		t.Errorf("the trap never ran (no SIGTERM first?); stderr = %q", stderrText(p))
	}
}

func TestProcessStopReachesGrandchildren(t *testing.T) {
	sp := newSpawner(t)
	// The grandchild ignores SIGTERM and keeps the stderr pipe open.
	p := startSh(t, sp, `(trap "" TERM; exec sleep 1000) & echo "grandchild $!" >&2; wait`)
	waitStderr(t, p, "grandchild ")
	var pid int
	for _, l := range p.Stderr().Since(0).Lines {
		if n, ok := strings.CutPrefix(l.Text, "grandchild "); ok {
			pid, _ = strconv.Atoi(n)
		}
	}
	if pid <= 0 {
		t.Fatalf("no grandchild pid in %q", stderrText(p))
	}
	stopBounded(t, p)
	waitDead(t, pid)
}

func TestProcessEnvIsWhitelisted(t *testing.T) {
	t.Setenv("API_KEY", "sk-from-the-shell")
	t.Setenv("RUN_MCP_TEST_LEAK", "leak")
	sp := newSpawner(t)
	p, err := Start(sp, Spec{Command: "env", Env: map[string]string{"API_KEY": "sk-explicit", "EXTRA": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(); _ = p.Stdout().Close() })
	out, err := io.ReadAll(p.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, kv := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, value, _ := strings.Cut(kv, "=")
		names = append(names, name)
		if name == "API_KEY" && value != "sk-explicit" {
			t.Errorf("API_KEY = %q, want the explicit value", value)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if !slices.Contains([]string{"PATH", "HOME", "SHELL", "USER", "API_KEY", "EXTRA"}, n) {
			t.Errorf("the child got %s, which is neither whitelisted nor explicit (env: %q)", n, out)
		}
	}
	for _, want := range []string{"API_KEY", "EXTRA", "PATH"} {
		if !slices.Contains(names, want) {
			t.Errorf("the child lacks %s (env: %q)", want, out)
		}
	}
}

func TestProcessRelativeCommandResolvesAgainstDir(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"cwd $(pwd)\" >&2\nexit 4\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp := newSpawner(t)
	p, err := Start(sp, Spec{Command: "./server.sh", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	waitClosed(t, "the script to end", p.Done())
	if e, _ := p.Exit(); e.Code != 4 {
		t.Errorf("Exit() = %+v", e)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := stderrText(p); got != "cwd "+dir && got != "cwd "+real {
		t.Errorf("stderr = %q, want cwd %s", got, dir)
	}
}

func TestProcessLongStderrLineIsCut(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `head -c 100000 /dev/zero | tr '\0' x >&2; echo >&2; echo next >&2`)
	waitClosed(t, "the process to end", p.Done())
	lines := p.Stderr().Since(0).Lines
	if len(lines) != 2 || lines[1].Text != "next" {
		t.Fatalf("want the cut line then %q; got %d lines", "next", len(lines))
	}
	head, rest, ok := strings.Cut(lines[0].Text, " [... ")
	if !ok || head != strings.Repeat("x", maxStderrLine) {
		t.Fatalf("the kept part is %d bytes, want %d x's then the cut marker", len(head), maxStderrLine)
	}
	// 100,000 bytes written, 65,536 kept: 34,464 cut (the newline is not one of them).
	if rest != "34,464 more bytes cut ...]" {
		t.Errorf("cut marker = %q, want %q", "[... "+rest, "[... 34,464 more bytes cut ...]")
	}
}

func TestCommandNotFound(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "server.js")
	if err := os.WriteFile(notExec, []byte("console.log(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := newSpawner(t)
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Command: "run-mcp-no-such-command-xyz"}, "not found on PATH"},
		{Spec{Command: "/no/such/dir/server"}, "no such file: /no/such/dir/server"},
		{Spec{Command: "./missing.sh", Dir: dir}, "no such file: " + filepath.Join(dir, "missing.sh")},
		{Spec{Command: notExec}, "is not an executable file"},
		{Spec{Command: dir}, "is not an executable file"},
		{Spec{Command: ""}, "no command given"},
	} {
		p, err := Start(sp, tc.spec)
		if err == nil {
			p.Stop()
			t.Errorf("Start(%q) succeeded", tc.spec.Command)
			continue
		}
		var nf *CommandNotFoundError
		if !errors.As(err, &nf) || nf.Command != tc.spec.Command {
			t.Errorf("Start(%q) = %v (%T), want *CommandNotFoundError", tc.spec.Command, err, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "command not found: ") || !strings.Contains(msg, "Check the spelling") {
			t.Errorf("Start(%q) error = %q, want it to contain %q", tc.spec.Command, msg, tc.want)
		}
	}
}

func TestSpawnerClosedRefusesToStart(t *testing.T) {
	sp := NewSpawner()
	sp.Close()
	sp.Close() // idempotent
	_, err := Start(sp, Spec{Command: "true"})
	if !errors.Is(err, ErrSpawnerClosed) {
		t.Errorf("Start after Close = %v, want ErrSpawnerClosed", err)
	}
}

func TestSpecCommandLine(t *testing.T) {
	s := Spec{Command: "node", Args: []string{"dist/index.js", "--name", "my server", "", `a"b`, "$HOME"}}
	want := `node dist/index.js --name "my server" "" "a\"b" "$HOME"`
	if got := s.CommandLine(); got != want {
		t.Errorf("CommandLine() = %s, want %s", got, want)
	}
}

// TestProcessSignalNameFromState checks the signal name carried by a real
// wait status, for the signals a crash report names.
func TestProcessSignalNameFromState(t *testing.T) {
	sp := newSpawner(t)
	for _, sig := range []syscall.Signal{syscall.SIGABRT, syscall.SIGKILL} {
		p := startSh(t, sp, "kill -"+strings.TrimPrefix(SignalName(sig), "SIG")+" $$")
		waitClosed(t, "the process to end", p.Done())
		if e, _ := p.Exit(); e.Signal != SignalName(sig) || e.Sentence() != "The server was killed by "+SignalName(sig)+"." {
			t.Errorf("%s: Exit() = %+v (%q)", SignalName(sig), e, e.Sentence())
		}
	}
}

func TestProcessStderrLineAtTheCapIsNotCut(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `head -c 65536 /dev/zero | tr '\0' y >&2; echo >&2`)
	waitClosed(t, "the process to end", p.Done())
	lines := p.Stderr().Since(0).Lines
	if len(lines) != 1 || lines[0].Text != strings.Repeat("y", maxStderrLine) {
		t.Fatalf("a line of exactly %d bytes came back as %d line(s), first %d bytes, ending %q",
			maxStderrLine, len(lines), len(lines[0].Text), lines[0].Text[max(0, len(lines[0].Text)-40):])
	}
}
