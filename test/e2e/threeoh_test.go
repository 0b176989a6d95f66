//go:build !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The outputs of 3.0.0 that scripts and agents rely on (the reference's
// "Outputs of 3.0.0" → Headless), one by one.

func TestThreeOhCallAndListShapes(t *testing.T) {
	t.Parallel()
	// call prints the content array; --raw the whole envelope.
	r := run(t, args([]string{"call", "echo", "message=hi"}, demo())...)
	r.wantCode(t, 0)
	var content []contentItem
	r.json(t, &content)
	if len(content) != 1 || content[0].Text != "echo: hi" {
		t.Fatalf("call prints the content array\n%s", r)
	}
	r = run(t, args([]string{"call", "echo", "message=hi", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var env map[string]json.RawMessage
	r.json(t, &env)
	for _, k := range []string{"content", "stderr", "stdout_noise", "transport_errors", "progress", "input_requests", "protocol"} {
		if _, ok := env[k]; !ok {
			t.Errorf("call --raw lacks %q\n%s", k, r)
		}
	}
	// The list commands print arrays; describe the one tool object.
	for _, cmd := range []string{"list-tools", "list-resources", "list-prompts"} {
		r := run(t, args([]string{cmd}, demo())...)
		r.wantCode(t, 0)
		var items []map[string]any
		r.json(t, &items)
		if len(items) == 0 {
			t.Errorf("%s prints a non-empty JSON array\n%s", cmd, r)
		}
	}
	r = run(t, args([]string{"describe", "echo"}, demo())...)
	r.wantCode(t, 0)
	var tool map[string]json.RawMessage
	r.json(t, &tool)
	if string(tool["name"]) != `"echo"` || tool["inputSchema"] == nil {
		t.Errorf("describe prints the tool object\n%s", r)
	}
}

func TestThreeOhStatusLines(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"list-tools"}, demo())...)
	r.wantCode(t, 0)
	if !strings.HasPrefix(r.stderr, "Connecting to ") {
		t.Errorf("stderr must start with Connecting …\n%s", r)
	}
	r.connectedLine(t)
	r = run(t, args([]string{"list-tools", "--protocol", "2026-07-28"}, demo())...)
	r.wantCode(t, 0)
	r.wantStderr(t, "Connecting to ", "protocol 2026-07-28 (modern era)")
	if regexp.MustCompile("\x1b\\[").MatchString(r.stdout) {
		t.Errorf("stdout carries ANSI escapes\n%s", r)
	}
}

func TestThreeOhErrorWordings(t *testing.T) {
	t.Parallel()
	everything := everything(t)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"unknown tool", args([]string{"call", "ecoh", "message=hi"}, everything), 64,
			[]string{`Tool "ecoh" not found. Did you mean "echo"?`, "\nAvailable tools: "}},
		{"malformed JSON", args([]string{"call", "echo", `{"message":`}, demo()), 65, []string{"Invalid JSON"}},
		{"no target", []string{"call", "echo", "message=hi"}, 64, []string{"separated by '--'"}},
		{"env without =", args([]string{"list-tools", "--env", "NOEQUALS"}, demo()), 64, []string{"--env expects KEY=VALUE", `"NOEQUALS"`}},
		{"protocol", args([]string{"list-tools", "--protocol", "soon"}, demo()), 64, []string{"--protocol expects legacy, auto or a YYYY-MM-DD revision"}},
		{"idle timeout", args([]string{"list-tools", "--session", "x", "--idle-timeout", "soon"}, demo()), 64,
			[]string{"--idle-timeout must be a positive number of minutes"}},
		{"session name", args([]string{"list-tools", "--session", "../escape"}, demo()), 64, []string{`Session name "../escape" is invalid`}},
		{"modern-only server", []string{"list-tools", "--", schemasServer, "-modern-only"}, 69,
			[]string{"Unsupported protocol version", "--protocol auto"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tc.args...)
			r.wantCode(t, tc.code)
			r.wantNoStdout(t)
			r.wantStderr(t, tc.stderr...)
			// Our stable prefix first, 3.0's words after it.
			if !strings.HasPrefix(r.stderr, "run-mcp: ") && !strings.Contains(r.stderr, "\nrun-mcp: ") {
				t.Errorf("no run-mcp: prefix\n%s", r)
			}
		})
	}
	// The modern-only server answers the hinted --protocol auto.
	run(t, "list-tools", "--protocol", "auto", "--", schemasServer, "-modern-only").wantCode(t, 0)
}

func TestThreeOhTimeouts(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "slow", "seconds:=10", "--timeout", "300"}, demo())...)
	r.wantCode(t, 69)
	r.wantStderr(t, "timed out")
	s := newSession(t, "slow")
	s.run(args([]string{"list-tools", "--session", "slow"}, demo())...).wantCode(t, 0)
	r = s.run("call", "slow", "seconds:=10", "--timeout", "300", "--session", "slow")
	r.wantCode(t, 1)
	r.wantStderr(t, "timed out", "Raise --timeout")
	if strings.Contains(r.stderr, "timeout_ms") || strings.Contains(r.stderr, "get_mcp_server_stderr") {
		t.Errorf("a shell user is told of the agent's parameters\n%s", r)
	}
}

// --show-stderr one-shot: from the server's start; sessioned: only what
// it wrote during that call. Stdout noise warns with 3.0's words, once for
// the whole one-shot life (start-up and call).
func TestThreeOhShowStderrAndNoise(t *testing.T) {
	t.Parallel()
	target := demo("--stdout-noise", "debug: booting", "--stderr-flood", "2")
	r := run(t, args([]string{"call", "noise", "--show-stderr"}, target)...)
	r.wantCode(t, 0)
	r.wantStderr(t, "[server stderr] flood line 1", "[server stderr] flood line 2",
		"Warning: The server wrote 2 non-JSON line(s) to stdout", "line 1: debug: booting")
	if n := strings.Count(r.stderr, "Warning: The server wrote"); n != 1 {
		t.Errorf("%d noise warnings, want one for the whole run\n%s", n, r)
	}

	s := newSession(t, "shown")
	s.run(args([]string{"list-tools", "--session", "shown"}, target)...).wantCode(t, 0)
	r = s.run("call", "stderr", "lines:=1", "--show-stderr", "--session", "shown")
	r.wantCode(t, 0)
	r.wantStderr(t, "[server stderr] stderr line 1")
	if strings.Contains(r.stderr, "flood line") {
		t.Errorf("sessioned --show-stderr shows lines from before the call\n%s", r)
	}
	// Unasked, a sessioned call is silent on stderr, noise or not.
	r = s.run("call", "noise", "--session", "shown")
	r.wantCode(t, 0)
	if r.stderr != "" {
		t.Errorf("a sessioned call printed on stderr unasked\n%s", r)
	}
	r = s.run("call", "noise", "--show-stderr", "--session", "shown")
	r.wantStderr(t, "Warning: The server wrote 1 non-JSON line(s) to stdout")
}

func TestThreeOhSessionRefusals(t *testing.T) {
	t.Parallel()
	s := newSession(t, "modern")
	s.run(args([]string{"list-tools", "--session", "modern", "--protocol", "2026-07-28", "--env", "KEY=one", "--env", "SAME=1"}, demo())...).wantCode(t, 0)
	for _, tc := range []struct {
		words  []string
		stderr []string
	}{
		{args([]string{"list-tools", "--session", "modern"}, demo("--stderr-flood", "1")),
			[]string{"already running a different server", "close-session modern"}},
		{[]string{"list-tools", "--session", "modern", "--env", "KEY=two", "--env", "SAME=1"}, []string{"env differs for: KEY (names only"}},
		{[]string{"list-tools", "--session", "modern", "--protocol", "legacy"}, []string{"running protocol: 2026-07-28"}},
	} {
		r := s.run(tc.words...)
		r.wantCode(t, 64)
		r.wantStderr(t, tc.stderr...)
		if strings.Contains(r.stderr, "SAME") || strings.Contains(r.stderr, "one") || strings.Contains(r.stderr, "two") {
			t.Errorf("a refusal shows an env value or a variable that does not differ\n%s", r)
		}
	}
	r := s.run("list-tools", "--session", "nothere")
	r.wantStderr(t, `Session "nothere" is not running`, "run-mcp list-tools --session nothere -- ")

	// sessions rows: 3.0's fields, command as one string, idle as a duration.
	s.run("call", "echo", "message=hi", "--session", "modern", "--idle-timeout", "90").wantCode(t, 0)
	r = s.run("sessions")
	r.wantCode(t, 0)
	var rows []map[string]json.RawMessage
	r.json(t, &rows)
	if len(rows) != 1 {
		t.Fatalf("sessions\n%s", r)
	}
	for _, k := range []string{"name", "pid", "command", "cwd", "env_keys", "protocol", "started_at", "uptime", "idle_timeout"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("sessions row lacks %q\n%s", k, r)
		}
	}
	var cmd, idle, proto string
	_ = json.Unmarshal(rows[0]["command"], &cmd)
	_ = json.Unmarshal(rows[0]["idle_timeout"], &idle)
	_ = json.Unmarshal(rows[0]["protocol"], &proto)
	if !strings.HasSuffix(cmd, " demo-server") || idle != "90m" || proto != "2026-07-28" {
		t.Errorf("sessions row: command %q idle %q protocol %q\n%s", cmd, idle, proto, r)
	}
}

// reconnect --session: 3.0's JSON on success and on failure (exit 69), and
// a later call on the dead session says "not connected" with the command.
func TestThreeOhReconnectShapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken")
	script := filepath.Join(dir, "srv.sh")
	body := "#!/bin/sh\nif [ -f " + broken + " ]; then echo 'Error: Cannot find module ./db.js' >&2; exit 3; fi\nexec " + bin + " demo-server\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, "rc")
	s.run("list-tools", "--session", "rc", "--", script).wantCode(t, 0)
	r := s.run("reconnect", "--session", "rc")
	r.wantCode(t, 0)
	var ok struct {
		Reconnected *bool    `json:"reconnected"`
		Pid         int      `json:"pid"`
		Command     string   `json:"command"`
		Changes     []string `json:"changes"`
	}
	r.json(t, &ok)
	if ok.Reconnected == nil || !*ok.Reconnected || ok.Pid <= 0 || ok.Command != script || strings.Join(ok.Changes, "|") != "Changes since last connection: none" {
		t.Errorf("reconnect: %+v\n%s", ok, r)
	}

	if err := os.WriteFile(broken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r = s.run("reconnect", "--session", "rc")
	r.wantCode(t, 69)
	var bad map[string]json.RawMessage
	r.json(t, &bad)
	for _, k := range []string{"reconnected", "error", "exit", "stderr"} {
		if _, ok := bad[k]; !ok {
			t.Errorf("a failed reconnect lacks %q\n%s", k, r)
		}
	}
	if string(bad["reconnected"]) != "false" || !strings.Contains(string(bad["stderr"]), "Cannot find module ./db.js") || !strings.Contains(string(bad["exit"]), "code 3") {
		t.Errorf("a failed reconnect: %s", r)
	}
	r = s.run("call", "echo", "message=hi", "--session", "rc")
	r.wantCode(t, 1)
	r.wantStderr(t, "NO_CONNECTION: ", "not connected", "run-mcp reconnect --session rc")
	if strings.Contains(r.stderr, "<name>") || strings.Contains(r.stderr, "reconnect_to_mcp") {
		t.Errorf("the way back must be the exact shell command\n%s", r)
	}
	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	s.run("reconnect", "--session", "rc").wantCode(t, 0)
	s.run("call", "echo", "message=hi", "--session", "rc").wantCode(t, 0)
}

// validate --json: 3.0's keys, handshake_connection first (on a session it
// says it used the already-running session), stdout noise quoted.
func TestThreeOhValidateJSON(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "noisy.sh")
	body := "#!/bin/sh\necho 'debug: one'\necho 'debug: two'\nexec " + bin + " demo-server\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Success         *bool  `json:"success"`
		Status          string `json:"status"`
		ProtocolEra     string `json:"protocolEra"`
		ProtocolVersion string `json:"protocolVersion"`
		ToolCount       *int   `json:"toolCount"`
		Checks          []struct {
			Name, Status, Message string
		} `json:"checks"`
	}
	check := func(rep report, name string) string {
		for _, c := range rep.Checks {
			if c.Name == name {
				return c.Status + " " + c.Message
			}
		}
		return ""
	}
	r := run(t, "validate", "--json", "--", script)
	r.wantCode(t, 1)
	var rep report
	r.json(t, &rep)
	if rep.Success == nil || *rep.Success || rep.Status != "FAIL" || rep.ProtocolEra != "legacy" || rep.ProtocolVersion == "" ||
		rep.ToolCount == nil || *rep.ToolCount != 17 || len(rep.Checks) == 0 || rep.Checks[0].Name != "handshake_connection" {
		t.Fatalf("validate --json: %+v\n%s", rep, r)
	}
	if got := check(rep, "stdout_protocol_channel"); !strings.HasPrefix(got, "FAIL 2 non-JSON line(s)") ||
		!strings.Contains(got, `"debug: one"`) || !strings.Contains(got, `"debug: two"`) {
		t.Errorf("stdout_protocol_channel: %s", got)
	}

	r = run(t, args([]string{"validate", "--json", "--protocol", "2026-07-28"}, demo())...)
	r.wantCode(t, 0)
	rep = report{}
	r.json(t, &rep)
	if rep.Success == nil || !*rep.Success || rep.Status != "PASS" || rep.ProtocolEra != "modern" {
		t.Errorf("modern validate --json: %+v\n%s", rep, r)
	}

	s := newSession(t, "val")
	s.run(args([]string{"list-tools", "--session", "val"}, demo())...).wantCode(t, 0)
	r = s.run("validate", "--json", "--session", "val")
	r.wantCode(t, 0)
	rep = report{}
	r.json(t, &rep)
	if len(rep.Checks) == 0 || rep.Checks[0].Name != "handshake_connection" || !strings.Contains(rep.Checks[0].Message, "already-running session") {
		t.Errorf("sessioned validate: %+v\n%s", rep, r)
	}
}
