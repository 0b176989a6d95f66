//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// how runs run-mcp differently from runIn: in a given directory, with
// stdin, with stdout and stderr into one buffer (a shell's 2>&1), or with
// more environment.
type how struct {
	dir      string
	stdin    string
	combined bool
	env      []string
}

// runHow runs run-mcp to completion with TMPDIR=tmp, as h says. With
// combined, stdout holds both streams in the order they were written.
func runHow(t *testing.T, tmp string, h how, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := commandIn(t, ctx, tmp, args...)
	if h.dir != "" {
		c.Dir = h.dir
	}
	c.Env = append(c.Env, h.env...)
	c.Stdin = strings.NewReader(h.stdin)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if h.combined {
		c.Stderr = &out
	}
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run-mcp %s: %v (a hang or a crash)\n%s", strings.Join(args, " "), err, r)
	}
	return r
}

// wantOneJSON fails unless the whole output (both streams, 2>&1) is one
// JSON value: what `… 2>&1 | jq` needs.
func (r result) wantOneJSON(t *testing.T) json.RawMessage {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("2>&1 is not JSON: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("2>&1 has more than the one JSON value (a stray line on stderr?)\n%s", r)
	}
	return v
}

// Every sessioned command prints nothing but its JSON, on either stream,
// so `run-mcp … --session s 2>&1 | jq` works: here against a demo server
// that writes to stdout (noise) and stderr at start-up, and during calls.
func TestSessionedCommandsPipeIntoJSON(t *testing.T) {
	t.Parallel()
	s := newSession(t, "pipe")
	both := how{combined: true}
	start := args([]string{"list-tools", "--session", "pipe"}, demo("--stdout-noise", "debug: booting", "--stderr-flood", "3"))
	first := runHow(t, s.tmp, both, start...)
	first.wantCode(t, 0)
	first.wantOneJSON(t)
	for _, words := range [][]string{
		{"call", "echo", "message=hi"}, {"call", "echo", "message=hi", "--raw"},
		{"call", "noise"}, {"call", "noise", "--raw"}, {"call", "stderr", "lines:=2"},
		{"call", "add", "a=2", "b=3", "--raw"},
		{"list-tools"}, {"list-tools", "--raw"}, {"list-resources"}, {"list-resources", "--raw"},
		{"list-prompts"}, {"list-prompts", "--raw"},
		{"read", "demo://counter"}, {"read", "demo://counter", "--raw"},
		{"get-prompt", "greet", "name=Ada"}, {"get-prompt", "greet", "name=Ada", "--raw"},
		{"describe", "echo"}, {"describe", "echo", "--raw"},
		{"stderr"}, {"stderr", "2", "--raw"},
		{"validate", "--json"}, {"validate", "--raw"},
		{"reconnect"}, {"reconnect", "--raw"},
		{"call", "echo", "message=after", "--idle-timeout", "30"},
	} {
		r := runHow(t, s.tmp, both, append(words, "--session", "pipe")...)
		if r.code != 0 && !(words[0] == "validate" && r.code == 1) {
			t.Errorf("exit %d\n%s", r.code, r)
			continue
		}
		r.wantOneJSON(t)
	}
	r := runHow(t, s.tmp, both, "sessions")
	r.wantCode(t, 0)
	r.wantOneJSON(t)
}

// The same against real npm servers: server-everything (tools, resources,
// prompts) and server-filesystem, which declares no prompts: the fact that
// 3.0 printed as a Note on stderr is in --raw's "undeclared".
func TestSessionedRealServersPipeIntoJSON(t *testing.T) {
	t.Parallel()
	s := newSession(t, "everything")
	both := how{combined: true}
	first := runHow(t, s.tmp, both, args([]string{"list-tools", "--session", "everything"}, everything(t))...)
	first.wantCode(t, 0)
	first.wantOneJSON(t)
	for _, words := range [][]string{
		{"call", "echo", "message=hi"}, {"call", "echo", "message=hi", "--raw"},
		{"list-resources"}, {"list-resources", "--raw"}, {"list-prompts"}, {"list-prompts", "--raw"},
		{"describe", "echo"}, {"stderr"}, {"validate", "--json"},
	} {
		r := runHow(t, s.tmp, both, append(words, "--session", "everything")...)
		if r.code != 0 && !(words[0] == "validate" && r.code == 1) {
			t.Errorf("exit %d\n%s", r.code, r)
			continue
		}
		r.wantOneJSON(t)
	}

	dir := t.TempDir()
	fsCmd, err := targets.ServerFilesystem(dir)
	targets.Require(t, err)
	fs := newSession(t, "fs")
	first = runHow(t, fs.tmp, both, append([]string{"list-tools", "--session", "fs", "--"}, fsCmd...)...)
	first.wantCode(t, 0)
	first.wantOneJSON(t)
	r := runHow(t, fs.tmp, both, "list-prompts", "--session", "fs")
	r.wantCode(t, 0)
	if got := strings.Join(strings.Fields(string(r.wantOneJSON(t))), ""); got != "[]" {
		t.Errorf("list-prompts of a server without prompts: %s, want []\n%s", got, r)
	}
	r = runHow(t, fs.tmp, both, "list-prompts", "--raw", "--session", "fs")
	r.wantCode(t, 0)
	var raw struct {
		Prompts    []json.RawMessage `json:"prompts"`
		Undeclared []string          `json:"undeclared"`
	}
	if err := json.Unmarshal(r.wantOneJSON(t), &raw); err != nil || len(raw.Prompts) != 0 || strings.Join(raw.Undeclared, ",") != "prompts" {
		t.Errorf("list-prompts --raw must say prompts are undeclared: %+v %v\n%s", raw, err, r)
	}
}

// A relative command line (sh srv.sh) means the srv.sh of the directory it
// runs in: from another directory it is another server, and the session
// refuses it with the difference shown.
func TestSessionRelativeDir(t *testing.T) {
	t.Parallel()
	s := newSession(t, "rel")
	one, two := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\nexec " + bin + " demo-server\n"
	for _, d := range []string{one, two} {
		if err := os.WriteFile(filepath.Join(d, "srv.sh"), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := runHow(t, s.tmp, how{dir: one}, "list-tools", "--session", "rel", "--", "sh", "srv.sh")
	r.wantCode(t, 0)
	// The same words from the same directory attach.
	runHow(t, s.tmp, how{dir: one}, "call", "echo", "message=hi", "--session", "rel", "--", "sh", "srv.sh").wantCode(t, 0)
	r = runHow(t, s.tmp, how{dir: two}, "call", "echo", "message=hi", "--session", "rel", "--", "sh", "srv.sh")
	r.wantCode(t, 64)
	r.wantNoStdout(t)
	r.wantStderr(t, `session "rel" is already running a different server`, `the relative command "sh srv.sh" was started in `+one, "this call is in "+two,
		"close-session rel")
	// Without the command it attaches from anywhere.
	runHow(t, s.tmp, how{dir: two}, "call", "echo", "message=hi", "--session", "rel").wantCode(t, 0)
}

// Where the target command starts without --: after a JSON-object argument
// (inline, - or @file) the rest is the target; after key=value words a bare
// word is exit 65, nothing is spawned and --session is not swallowed.
func TestTargetWithoutDash(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r := runIn(t, tmp, "call", "echo", `{"message":"hi"}`, bin, "demo-server")
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: hi" {
		t.Errorf("text %q\n%s", got, r)
	}
	r = runIn(t, tmp, "call", "echo", "message=hi", "stray", "--session", "X")
	r.wantCode(t, 65)
	r.wantNoStdout(t)
	r.wantStderr(t, `"stray" is not an argument`, "put -- before it")
	if strings.Contains(r.stderr, "Connecting") || strings.Contains(r.stderr, "not found") {
		t.Errorf("stray was spawned\n%s", r)
	}
	rows := runIn(t, tmp, "sessions")
	if strings.TrimSpace(rows.stdout) != "[]" {
		t.Errorf("a refused call left a session:\n%s", rows)
	}
	// With -- everything after it is the target, flags included.
	r = runIn(t, tmp, args([]string{"call", "echo", "message=hi"}, demo("--stderr-flood", "1"))...)
	r.wantCode(t, 0)

	// - reads the JSON object from stdin, @path from a file.
	r = runHow(t, tmp, how{stdin: `{"message":"from stdin"}`}, args([]string{"call", "echo", "-"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: from stdin" {
		t.Errorf("- : text %q\n%s", got, r)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "args.json"), []byte(`{"message":"from a file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runHow(t, tmp, how{dir: dir}, "call", "echo", "@args.json", bin, "demo-server")
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: from a file" {
		t.Errorf("@path: text %q\n%s", got, r)
	}
	r = runHow(t, tmp, how{dir: dir}, args([]string{"call", "echo", "@missing.json"}, demo())...)
	r.wantCode(t, 65)
	r.wantStderr(t, "cannot read the JSON arguments file missing.json")
}

// key=value is a string unless the tool's schema declares the property a
// number, integer or boolean: then it is sent as that type, and --raw says
// so in "conversions". Digits stay exact.
func TestShorthandTypedBySchema(t *testing.T) {
	t.Parallel()
	const big = "12345678901234567890"
	r := run(t, "call", "echo_raw", "n="+big, "--raw", "--", schemasServer)
	r.wantCode(t, 0)
	text, _ := r.echoed(t)
	if text != `{"n":`+big+`}` {
		t.Errorf("the server received %s, want the integer %s\n%s", text, big, r)
	}
	var env struct {
		Conversions []struct {
			Argument string          `json:"argument"`
			From     string          `json:"from"`
			To       json.RawMessage `json:"to"`
			Type     string          `json:"type"`
		} `json:"conversions"`
	}
	r.json(t, &env)
	if len(env.Conversions) != 1 || env.Conversions[0].Argument != "n" || env.Conversions[0].Type != "integer" || string(env.Conversions[0].To) != big {
		t.Errorf("--raw conversions: %+v\n%s", env.Conversions, r)
	}
	// A string property keeps the string.
	r = run(t, args([]string{"call", "echo", "message=5", "--raw"}, demo())...)
	r.wantCode(t, 0)
	r.json(t, &env)
	var tr toolResult
	r.json(t, &tr)
	if len(tr.Content) != 1 || tr.Content[0].Text != "echo: 5" || len(env.Conversions) != 0 {
		t.Errorf("a string property must stay a string: %+v %+v\n%s", tr, env.Conversions, r)
	}
	// Numbers for the demo's add (a, b: number), also through a session.
	r = run(t, args([]string{"call", "add", "a=2", "b=40"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "42" {
		t.Errorf("add a=2 b=40: %q\n%s", got, r)
	}
	s := newSession(t, "typed")
	s.run(args([]string{"list-tools", "--session", "typed"}, demo())...).wantCode(t, 0)
	r = s.run("call", "add", "a=2", "b=0.5", "--session", "typed")
	r.wantCode(t, 0)
	if got := r.text(t); got != "2.5" {
		t.Errorf("sessioned add a=2 b=0.5: %q\n%s", got, r)
	}
}

// --raw on every subcommand that offers it, and what it adds.
func TestRawOnEveryCommand(t *testing.T) {
	t.Parallel()
	// list-tools --raw: the pages as sent, nextCursor included (the fixture
	// lists its tools over two pages), and the merged list.
	r := run(t, "list-tools", "--raw", "--", schemasServer)
	r.wantCode(t, 0)
	var lt struct {
		Tools []json.RawMessage `json:"tools"`
		Pages struct {
			Tools []struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"tools"`
		} `json:"pages"`
		Stderr   []string `json:"stderr"`
		Protocol string   `json:"protocol"`
	}
	r.json(t, &lt)
	if len(lt.Tools) != 3 || len(lt.Pages.Tools) != 2 || lt.Pages.Tools[0].NextCursor != "page2" || len(lt.Pages.Tools[1].Tools) != 2 {
		t.Errorf("list-tools --raw pages: %+v\n%s", lt, r)
	}
	if lt.Protocol == "" || !contains(lt.Stderr, "schemas: serving on stdio") {
		t.Errorf("list-tools --raw must carry the server's stderr and the protocol\n%s", r)
	}

	// read and get-prompt --raw: the result plus the envelope of call --raw.
	target := demo("--stdout-noise", "debug: booting", "--stderr-flood", "1")
	type envelope struct {
		Contents        []json.RawMessage `json:"contents"`
		Messages        []json.RawMessage `json:"messages"`
		Stderr          []string          `json:"stderr"`
		StdoutNoise     []string          `json:"stdout_noise"`
		TransportErrors []json.RawMessage `json:"transport_errors"`
		Protocol        string            `json:"protocol"`
	}
	for _, words := range [][]string{{"read", "demo://counter", "--raw"}, {"get-prompt", "greet", "name=Ada", "--raw"}} {
		r := run(t, args(words, target)...)
		r.wantCode(t, 0)
		var env envelope
		r.json(t, &env)
		if len(env.Contents)+len(env.Messages) == 0 || !contains(env.Stderr, "flood line 1") || len(env.StdoutNoise) != 1 ||
			env.StdoutNoise[0] != "debug: booting" || env.TransportErrors == nil || env.Protocol == "" {
			t.Errorf("%s: %+v\n%s", words[0], env, r)
		}
	}
	// Without --raw they print the result alone.
	r = run(t, args([]string{"read", "demo://counter"}, target)...)
	r.wantCode(t, 0)
	if strings.Contains(r.stdout, `"stderr"`) {
		t.Errorf("read without --raw has the envelope\n%s", r)
	}

	// describe --raw: {"tool": …} and the same.
	r = run(t, args([]string{"describe", "echo", "--raw"}, target)...)
	r.wantCode(t, 0)
	var d struct {
		Tool struct {
			Name string `json:"name"`
		} `json:"tool"`
		Stderr []string `json:"stderr"`
	}
	r.json(t, &d)
	if d.Tool.Name != "echo" || !contains(d.Stderr, "flood line 1") {
		t.Errorf("describe --raw: %+v\n%s", d, r)
	}

	// stderr --raw: each line with its position (the since cursor) and time.
	r = run(t, args([]string{"stderr", "--raw"}, demo("--stderr-flood", "2"))...)
	r.wantCode(t, 0)
	var ex struct {
		Lines []struct {
			Seq  int    `json:"seq"`
			Time string `json:"time"`
			Text string `json:"text"`
		} `json:"lines"`
		Total int `json:"total"`
	}
	r.json(t, &ex)
	if ex.Total != 2 || len(ex.Lines) != 2 || ex.Lines[1].Seq != 2 || ex.Lines[1].Text != "flood line 2" || ex.Lines[1].Time == "" {
		t.Errorf("stderr --raw: %+v\n%s", ex, r)
	}

	// validate --raw is the JSON report.
	r = run(t, args([]string{"validate", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var rep struct {
		Status string `json:"status"`
	}
	r.json(t, &rep)
	if rep.Status != "PASS" {
		t.Errorf("validate --raw: %+v\n%s", rep, r)
	}

	// reconnect --raw: what the new server wrote, after the marker line
	// where the old process ended.
	s := newSession(t, "rawrec")
	s.run(args([]string{"list-tools", "--session", "rawrec"}, demo("--stderr-flood", "1"))...).wantCode(t, 0)
	r = s.run("reconnect", "--raw", "--session", "rawrec")
	r.wantCode(t, 0)
	var rec struct {
		Reconnected bool     `json:"reconnected"`
		Stderr      []string `json:"stderr"`
	}
	r.json(t, &rec)
	if !rec.Reconnected || len(rec.Stderr) != 2 || !strings.Contains(rec.Stderr[0], "ended") || rec.Stderr[1] != "flood line 1" {
		t.Errorf("reconnect --raw: %+v\n%s", rec, r)
	}
}

// The remaining items of the headless list: a bad --out-dir is a usage
// error before anything is spawned; --idle-timeout 0 clears a session's idle
// timeout; an unknown subcommand gets a "did you mean"; the default call
// timeout is the specification's 300,000 ms.
func TestHeadlessOdds(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, args([]string{"call", "echo", "message=hi", "--out-dir", filepath.Join(file, "sub")}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, "cannot use the output directory")
	if strings.Contains(r.stderr, "Connecting") {
		t.Errorf("a bad --out-dir must fail before the server is spawned\n%s", r)
	}

	// With a session, the same: a session about to start is not started,
	// and a running one's daemon refuses the call with the same words.
	s := newSession(t, "badout")
	r = s.run(args([]string{"call", "echo", "message=hi", "--session", "badout", "--out-dir", filepath.Join(file, "sub")}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, "cannot use the output directory")
	if rows := s.list(); len(rows) != 0 {
		t.Errorf("a bad --out-dir started session %+v", rows)
	}
	s.run(args([]string{"list-tools", "--session", "badout"}, demo())...).wantCode(t, 0)
	r = s.run("call", "echo", "message=hi", "--session", "badout", "--out-dir", filepath.Join(file, "sub"))
	r.wantCode(t, 64)
	r.wantStderr(t, "cannot use the output directory")
	s.run("call", "echo", "message=hi", "--session", "badout").wantCode(t, 0)

	r = run(t, "lst-tools")
	r.wantCode(t, 64)
	r.wantStderr(t, `unknown command "lst-tools". Did you mean "list-tools"?`)

	r = run(t, "call", "--help")
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "(default 300000)") || strings.Contains(r.stdout, "30000 headless") {
		t.Errorf("the headless default timeout must be 300000 ms\n%s", r)
	}

	s = newSession(t, "idle")
	s.run(args([]string{"list-tools", "--session", "idle", "--idle-timeout", "90"}, demo())...).wantCode(t, 0)
	if rows := s.list(); len(rows) != 1 || rows[0].Idle != "90m" {
		t.Fatalf("sessions idle_timeout: %+v", rows)
	}
	s.run("call", "echo", "message=hi", "--session", "idle", "--idle-timeout", "0.5").wantCode(t, 0)
	if rows := s.list(); len(rows) != 1 || rows[0].Idle != "30s" {
		t.Fatalf("a later call sets the idle timeout: %+v", rows)
	}
	s.run("call", "echo", "message=hi", "--session", "idle", "--idle-timeout", "0").wantCode(t, 0)
	if rows := s.list(); len(rows) != 1 || rows[0].Idle != "none" {
		t.Fatalf("--idle-timeout 0 must clear it: %+v", rows)
	}
}
