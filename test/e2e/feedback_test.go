package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// onTerminal runs run-mcp with its stderr on a pseudo-terminal (util-linux
// script), its stdout in a file. It returns what the terminal showed and
// what stdout held, or skips where there is no script to make a terminal.
func onTerminal(t *testing.T, args ...string) (screen, stdout string) {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) (util-linux) to give run-mcp a pseudo-terminal; install util-linux to run this test")
	}
	dir := t.TempDir()
	outFile := filepath.Join(dir, "stdout.json")
	line := shellQuote(bin)
	for _, a := range args {
		line += " " + shellQuote(a)
	}
	line += " >" + shellQuote(outFile)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qfec", line, "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	got, err := cmd.Output()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		t.Fatalf("script -qfec %s: %v", line, err)
	}
	if strings.Contains(string(got), "invalid option") || strings.Contains(string(got), "unrecognized option") {
		t.Skipf("this script(1) does not take -q -f -e -c (not util-linux?): %s", got)
	}
	out, _ := os.ReadFile(outFile)
	return string(got), string(out)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// On a terminal, a one-shot call says what it waits for once the wait
// passes a second, and shows the call's progress as it streams; stdout
// holds only the result.
func TestTerminalShowsWaitAndProgress(t *testing.T) {
	t.Parallel()
	screen, stdout := onTerminal(t, "call", "slow", "seconds:=2.4", "steps:=2", "--", bin, "demo-server")
	for _, want := range []string{"run-mcp: waiting for tools/call slow (1s) …", "run-mcp: progress 1/2 (50%): step 1", "run-mcp: progress 2/2 (100%): step 2"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal did not show %q:\n%q", want, screen)
		}
	}
	var content []contentItem
	if err := json.Unmarshal([]byte(stdout), &content); err != nil || len(content) != 1 || content[0].Text != "done after 2 steps" {
		t.Errorf("stdout is not the call's content alone (%v):\n%s", err, stdout)
	}
}

// The handshake is a wait too.
func TestTerminalShowsHandshakeWait(t *testing.T) {
	t.Parallel()
	screen, stdout := onTerminal(t, "list-tools", "--connect-timeout", "1600", "--", bin, "demo-server", "--silent-handshake")
	if want := "run-mcp: waiting for the handshake with " + bin + " demo-server --silent-handshake (1s) …"; !strings.Contains(screen, want) {
		t.Errorf("the terminal did not show %q:\n%q", want, screen)
	}
	if stdout != "" {
		t.Errorf("stdout must stay empty on a failed connect without --raw:\n%s", stdout)
	}
}

// When stderr is not a terminal (a program reads it), nothing is added.
func TestNoFeedbackOffTerminal(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "slow", "seconds:=1.5", "steps:=2"}, demo())...)
	r.wantCode(t, 0)
	for _, not := range []string{"waiting for", "progress", "\x1b["} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("stderr (not a terminal) holds %q\n%s", not, r)
		}
	}
}

// envelope is --raw's JSON error envelope.
type envelope struct {
	Error    string   `json:"error"`
	Code     *string  `json:"code"`
	ExitCode int      `json:"exit_code"`
	Exit     *string  `json:"exit"`
	Stderr   []string `json:"stderr"`
}

func (r result) envelope(t *testing.T) envelope {
	t.Helper()
	var raw map[string]json.RawMessage
	r.json(t, &raw)
	for _, k := range []string{"error", "code", "exit_code", "exit", "stderr"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("the envelope lacks %q\n%s", k, r)
		}
	}
	var e envelope
	r.json(t, &e)
	if e.ExitCode != r.code {
		t.Errorf("exit_code %d, but run-mcp exited %d\n%s", e.ExitCode, r.code, r)
	}
	return e
}

func code(e envelope) string {
	if e.Code == nil {
		return "<null>"
	}
	return *e.Code
}

// With --raw a failing command prints a JSON error envelope on stdout, so a
// script need not parse stderr. (The exit sentence of a server that dies at
// start is matched loosely: when its death races run-mcp's first write, the
// engine words it "stopped by run-mcp and exited with code 1".)
func TestRawErrorEnvelope(t *testing.T) {
	t.Parallel()
	t.Run("crash at start", func(t *testing.T) {
		t.Parallel()
		r := run(t, args([]string{"call", "echo", "message=hi", "--raw"}, demo("--crash-at-start", "no config"))...)
		r.wantCode(t, 69)
		e := r.envelope(t)
		if code(e) != "CONNECT_FAILED" || e.Exit == nil || !strings.Contains(*e.Exit, "exited with code 1") ||
			len(e.Stderr) == 0 || e.Stderr[0] != "demo-server: fatal: no config" || !strings.HasPrefix(e.Error, "Failed to connect") {
			t.Errorf("crash at start: %+v\n%s", e, r)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r := run(t, args([]string{"call", "slow", "seconds:=30", "--timeout", "500", "--raw"}, demo())...)
		r.wantCode(t, 69)
		e := r.envelope(t)
		if code(e) != "TIMEOUT" || e.Exit != nil || !strings.Contains(e.Error, "timed out") ||
			len(e.Stderr) == 0 || e.Stderr[0] != "demo-server: slow: started, 4 step(s) over 30s" {
			t.Errorf("timeout: %+v\n%s", e, r)
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		t.Parallel()
		r := run(t, args([]string{"call", "ecko", "message=hi", "--raw"}, demo())...)
		r.wantCode(t, 64)
		e := r.envelope(t)
		if code(e) != "UNKNOWN_TOOL" || e.Exit != nil || !strings.Contains(e.Error, `Did you mean "echo"?`) || e.Stderr == nil {
			t.Errorf("unknown tool: %+v\n%s", e, r)
		}
	})
	t.Run("server dies in a call", func(t *testing.T) {
		t.Parallel()
		r := run(t, args([]string{"call", "crash", "--raw"}, demo())...)
		r.wantCode(t, 1)
		e := r.envelope(t)
		if code(e) != "SERVER_EXITED" || e.Exit == nil || !strings.Contains(*e.Exit, "code 3") || len(e.Stderr) == 0 {
			t.Errorf("crash in a call: %+v\n%s", e, r)
		}
	})
	t.Run("sessioned", func(t *testing.T) {
		t.Parallel()
		tmp := t.TempDir()
		t.Cleanup(func() { runIn(t, tmp, "close-session", "env1") })
		runIn(t, tmp, args([]string{"list-tools", "--session", "env1"}, demo())...).wantCode(t, 0)
		r := runIn(t, tmp, "call", "ecko", "--raw", "--session", "env1")
		r.wantCode(t, 64)
		if e := r.envelope(t); code(e) != "UNKNOWN_TOOL" || e.Exit != nil {
			t.Errorf("sessioned unknown tool: %+v\n%s", e, r)
		}
		r = runIn(t, tmp, "call", "slow", "seconds:=30", "--timeout", "500", "--raw", "--session", "env1")
		r.wantCode(t, 1)
		if e := r.envelope(t); code(e) != "TIMEOUT" || len(e.Stderr) == 0 || e.Stderr[0] != "demo-server: slow: started, 4 step(s) over 30s" {
			t.Errorf("sessioned timeout: %+v\n%s", e, r)
		}
	})
	t.Run("sessioned crash at start", func(t *testing.T) {
		t.Parallel()
		r := runIn(t, t.TempDir(), args([]string{"list-tools", "--session", "dies", "--raw"}, demo("--crash-at-start", "no config"))...)
		r.wantCode(t, 69)
		e := r.envelope(t)
		if code(e) != "CONNECT_FAILED" || e.Exit == nil || !strings.Contains(*e.Exit, "exited with code 1") ||
			len(e.Stderr) == 0 || e.Stderr[0] != "demo-server: fatal: no config" {
			t.Errorf("sessioned crash at start: %+v\n%s", e, r)
		}
	})
	t.Run("success prints no envelope", func(t *testing.T) {
		t.Parallel()
		r := run(t, args([]string{"call", "echo", "message=hi", "--raw"}, demo())...)
		r.wantCode(t, 0)
		if strings.Contains(r.stdout, `"exit_code"`) {
			t.Errorf("a success printed an error envelope\n%s", r)
		}
	})
}

// The first command of a session waits for the same handshake, and says so
// on a terminal as a one-shot command does.
func TestTerminalShowsSessionStartWait(t *testing.T) {
	t.Parallel()
	screen, _ := onTerminal(t, "list-tools", "--session", "slowstart", "--connect-timeout", "1600", "--", bin, "demo-server", "--silent-handshake")
	if want := "run-mcp: waiting for the handshake with " + bin + " demo-server --silent-handshake (1s) …"; !strings.Contains(screen, want) {
		t.Errorf("the terminal did not show %q:\n%q", want, screen)
	}
}
