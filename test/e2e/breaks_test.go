package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// generous is the bound on runs that must end promptly: far above what they
// take, so it only catches a hang or a wasted timeout, never a slow machine.
const generous = 5 * time.Second

func (r result) wantWithin(t *testing.T, d time.Duration) {
	t.Helper()
	if r.took > d {
		t.Errorf("took %s, want under %s (a hang or a wasted timeout)\n%s", r.took.Round(time.Millisecond), d, r)
	}
}

var stamp = `\d\d:\d\d:\d\d\.\d{3}`

func TestCrashAtStart(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"list-tools"}, demo("--crash-at-start", "Cannot find module './db-config.js'"))...)
	r.wantCode(t, 69)
	r.wantNoStdout(t)
	r.wantStderr(t,
		"Failed to connect: Connection closed",
		`Command: `+bin+` demo-server --crash-at-start "Cannot find module './db-config.js'"`,
		"The server exited with code 1.",
		"--- Target server stderr (this is almost certainly the cause) ---",
	)
	reason := regexp.MustCompile(`(?m)^` + stamp + ` #1  demo-server: fatal: Cannot find module './db-config\.js'$`)
	if !reason.MatchString(r.stderr) {
		t.Errorf("no stamped #1 reason line\n%s", r)
	}
	// The evidence comes in the spec's order: reason, command, exit, heading, stderr.
	order := []string{"Failed to connect", "Command:", "The server exited", "--- Target server stderr", "#1  demo-server: fatal"}
	last := -1
	for _, s := range order {
		i := strings.Index(r.stderr, s)
		if i < last {
			t.Errorf("%q out of order\n%s", s, r)
		}
		last = i
	}
	r.wantWithin(t, generous)
}

func TestCrashAtStartOnCall(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "echo", "message=hi"}, demo("--crash-at-start", "EADDRINUSE: port 3000"))...)
	r.wantCode(t, 69)
	r.wantNoStdout(t)
	r.wantStderr(t, "Failed to connect: Connection closed", "The server exited with code 1.", "EADDRINUSE: port 3000")
	r.wantWithin(t, generous)
}

func TestCrashMidCall(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "crash"}, demo())...)
	r.wantCode(t, 1)
	r.wantNoStdout(t)
	r.wantStderr(t,
		"The server died during the call",
		// Its own exit, not "stopped by run-mcp": it died before we acted.
		"\nThe server exited with code 3.\n",
		"--- Target server stderr (this is almost certainly the cause) ---",
		"demo-server: crashing on purpose in a call (exit 3)",
	)
	crash := regexp.MustCompile(`(?m)^` + stamp + ` #1  demo-server: crashing on purpose in a call \(exit 3\)$`)
	if !crash.MatchString(r.stderr) {
		t.Errorf("no stamped crash line\n%s", r)
	}
	r.wantWithin(t, generous)

	r = run(t, args([]string{"call", "crash", "code:=42"}, demo())...)
	r.wantCode(t, 1)
	r.wantStderr(t, "The server died during the call", "\nThe server exited with code 42.\n")
	if strings.Contains(r.stderr, "stopped by run-mcp") {
		t.Errorf("a server that crashed is reported as stopped by run-mcp\n%s", r)
	}
}

// TestCrashMidCallIsTheServersOwnExit repeats the crash: the report must never
// blame run-mcp, whichever of stdout EOF and the reaping is seen first.
func TestCrashMidCallIsTheServersOwnExit(t *testing.T) {
	t.Parallel()
	for i := range 10 {
		r := run(t, args([]string{"call", "crash"}, demo())...)
		r.wantCode(t, 1)
		if !strings.Contains(r.stderr, "\nThe server exited with code 3.\n") {
			t.Fatalf("run %d: the exit is not reported as the server's own\n%s", i+1, r)
		}
	}
}

func TestStdoutNoiseAtStartup(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "echo", "message=hi"}, demo("--stdout-noise", "debug: hello"))...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: hi" {
		t.Errorf("text %q\n%s", got, r)
	}
	r.wantStderr(t, "Warning: The server wrote 1 non-JSON line(s) to stdout", "line 1: debug: hello")
}

func TestStdoutNoiseDuringCall(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "noise"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "wrote one line of noise to stdout" {
		t.Errorf("text %q\n%s", got, r)
	}
	r.wantStderr(t, "Warning: The server wrote 1 non-JSON line(s) to stdout", ": this line is not JSON-RPC")

	// --raw carries the same evidence as data.
	r = run(t, args([]string{"call", "noise", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var env struct {
		// The lines as strings, as 3.0 printed them; when and where each
		// came under stdout_noise_detail.
		Noise  []string `json:"stdout_noise"`
		Detail []struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"stdout_noise_detail"`
		TransportErrors []json.RawMessage `json:"transport_errors"`
	}
	r.json(t, &env)
	if len(env.Noise) != 1 || env.Noise[0] != "this line is not JSON-RPC" {
		t.Errorf("stdout_noise = %q\n%s", env.Noise, r)
	}
	if len(env.Detail) != 1 || env.Detail[0].Text != env.Noise[0] || env.Detail[0].Line < 1 {
		t.Errorf("stdout_noise_detail = %+v\n%s", env.Detail, r)
	}
	if len(env.TransportErrors) != 0 {
		t.Errorf("transport_errors = %s", env.TransportErrors)
	}
}

func TestSilentHandshake(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"list-tools", "--connect-timeout", "500"}, demo("--silent-handshake"))...)
	r.wantCode(t, 69)
	r.wantNoStdout(t)
	r.wantStderr(t,
		"did not complete the MCP handshake within 500ms",
		"waiting on a database, a port or stdin",
		"It was torn down",
		"--- Target server stderr (this is almost certainly the cause) ---",
		"demo-server: waiting for a database that never comes",
	)
	r.wantWithin(t, generous)
}

// TestOverTheCap has the server answer with ~71 MB: the call fails with the
// size named, instead of run-mcp growing without bound.
func TestOverTheCap(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "big_text", "chars:=70000000"}, demo())...)
	if r.code == 0 {
		t.Fatalf("a 70 MB result was accepted\n%s", r)
	}
	r.wantNoStdout(t)
	if !regexp.MustCompile(`a message of 7\d,\d{3},\d{3} bytes, over the 64 MB cap`).MatchString(r.stderr) {
		t.Errorf("stderr does not name the size\n%s", r)
	}
	r.wantStderr(t, "write it to a file and return the path")
}

// TestOverTheCapMemoryIsBounded sends a 70,000,000-byte line from a target
// that costs nothing itself (head | tr), so run-mcp's own peak memory shows:
// the cap keeps it to a small multiple of 64 MB, where decoding the message
// would cost many times its size.
func TestOverTheCapMemoryIsBounded(t *testing.T) {
	t.Parallel()
	r := run(t, "list-tools", "--", "sh", "-c", `head -c 70000000 /dev/zero | tr '\0' x; echo; sleep 30`)
	r.wantCode(t, 69)
	r.wantNoStdout(t)
	r.wantStderr(t, "Failed to connect: Connection closed: the server sent a message of 70,000,000 bytes, over the 64 MB cap")
	if r.maxRSSKB > 512<<10 {
		t.Errorf("run-mcp peaked at %d MB for one oversized message, want well under 512 MB", r.maxRSSKB>>10)
	}
	t.Logf("peak RSS %d MB", r.maxRSSKB>>10)
	r.wantWithin(t, 2*generous) // the sleep 30 must not be waited for
}

// TestUnderTheCapPassesThrough: a large result under the cap is answered, and
// spilled to disk past --max-text rather than printed whole.
func TestUnderTheCapPassesThrough(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "big_text", "chars:=2000000", "--max-text", "-1"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); len(got) != 2_000_000 || !strings.HasPrefix(got, "line 000001 lorem ipsum") {
		t.Errorf("text of %d chars starting %q, want 2,000,000", len(got), got[:min(len(got), 40)])
	}
}

type rawEnvelope struct {
	Content  []json.RawMessage `json:"content"`
	Stderr   []string          `json:"stderr"`
	Protocol string            `json:"protocol"`
	Progress struct {
		Token  string `json:"token"`
		Events []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"events"`
	} `json:"progress"`
}

// TestStderrDuringCallRaw floods stderr at start, then writes 5,000 lines in
// the call. A one-shot server lived for that call alone, so the envelope's
// stderr is all it wrote, as the ring keeps it: the first lines (the flood at
// start-up), one gap marker, and the last lines (the call's).
func TestStderrDuringCallRaw(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "stderr", "lines:=5000", "--raw"}, demo("--stderr-flood", "100000"))...)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, `"stderr": [`) {
		t.Fatalf("the envelope has no stderr array\n%s", r)
	}
	var env rawEnvelope
	r.json(t, &env)
	if len(env.Stderr) < 3 || env.Stderr[0] != "flood line 1" || env.Stderr[len(env.Stderr)-1] != "stderr line 5000" {
		t.Fatalf("stderr runs %q … %q, want from the first start-up line to the call's last", first(env.Stderr), last(env.Stderr))
	}
	if !strings.Contains(strings.Join(env.Stderr, "\n"), "elided") {
		t.Errorf("no gap marker between the start-up lines and the call's")
	}
	if len(env.Stderr) > 1+100+1000 {
		t.Errorf("%d stderr lines, more than the ring keeps", len(env.Stderr))
	}
	if env.Protocol != "2025-11-25" {
		t.Errorf("protocol %q", env.Protocol)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

func TestRawProgress(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "slow", "seconds:=0.2", "steps:=4", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var env rawEnvelope
	r.json(t, &env)
	if env.Protocol != "2025-11-25" {
		t.Errorf("protocol %q, want 2025-11-25", env.Protocol)
	}
	if env.Progress.Token == "" {
		t.Errorf("no progress token in the envelope\n%s", r)
	}
	// 4 are sent; the demo server (mcp-go's stdio writer) may put the last
	// one on stdout after the result, where it no longer belongs to the
	// call: see TestKnownBugDemoProgressAfterResult. server-everything is
	// held to exactly 4 in TestRawProgressEverything.
	if n := len(env.Progress.Events); n != 4 && n != 3 {
		t.Fatalf("%d progress events, want 4\n%s", n, r)
	}
	for i, e := range env.Progress.Events {
		if e.Progress != float64(i+1) || e.Total != 4 {
			t.Errorf("event %d = %+v, want %d/4", i, e, i+1)
		}
	}
	if env.Stderr == nil {
		t.Errorf("the envelope's stderr must be an array, even empty\n%s", r)
	}
}

func TestRawProgressEverything(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"call", "trigger-long-running-operation", "duration:=0.2", "steps:=4", "--raw"}, target)...)
	r.wantCode(t, 0)
	var env rawEnvelope
	r.json(t, &env)
	if env.Protocol != "2025-11-25" || env.Progress.Token == "" {
		t.Errorf("protocol %q, token %q\n%s", env.Protocol, env.Progress.Token, r)
	}
	if len(env.Progress.Events) != 4 {
		t.Fatalf("%d progress events, want 4\n%s", len(env.Progress.Events), r)
	}
	for i, e := range env.Progress.Events {
		if e.Progress != float64(i+1) || e.Total != 4 {
			t.Errorf("event %d = %+v, want %d/4", i, e, i+1)
		}
	}
}
