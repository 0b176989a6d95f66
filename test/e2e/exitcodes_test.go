package e2e

import (
	"testing"
)

// TestExitCodes checks the table of exit codes a script branches on, with
// the message that tells the user what to do.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no target", []string{"list-tools"}, 64,
			[]string{"no target command", "separated by '--'", "run-mcp list-tools -- node my-server.js"}},
		{"no target for call", []string{"call", "echo", "message=hi"}, 64,
			[]string{"no target command"}},
		{"missing tool name", args([]string{"call"}, demo()), 64,
			[]string{"missing argument"}},
		{"unknown tool", args([]string{"call", "ecoh", "message=hi"}, demo()), 64,
			[]string{`Tool "ecoh" not found`, `Did you mean "echo"?`, "Available tools"}},
		{"bad JSON argument", args([]string{"call", "echo", "{bad"}, demo()), 65,
			[]string{"Invalid JSON arguments {bad", "key=value"}},
		{"bad := JSON", args([]string{"call", "echo", "message:={bad"}, demo()), 65,
			[]string{"the value after := must be JSON"}},
		{"bare word before --", args([]string{"call", "echo", "hello"}, demo()), 65,
			[]string{`"hello" is not an argument`, "put -- before it"}},
		{"command not found", []string{"list-tools", "--", "run-mcp-no-such-server-xyz"}, 66,
			[]string{`command not found: "run-mcp-no-such-server-xyz"`, "Check the spelling"}},
		{"path not found", []string{"call", "echo", "message=hi", "--", "/no/such/dir/server.js"}, 66,
			[]string{"no such file: /no/such/dir/server.js"}},
		{"misspelled flag", args([]string{"list-tools", "--sesion", "x"}, demo()), 64,
			[]string{"unknown flag --sesion", "did you mean --session?"}},
		{"misspelled flag on call", args([]string{"call", "echo", "message=hi", "--rwa"}, demo()), 64,
			[]string{"unknown flag --rwa", "did you mean --raw?"}},
		{"bad protocol", args([]string{"--protocol", "modern", "list-tools"}, demo()), 64,
			[]string{"--protocol expects legacy, auto or a YYYY-MM-DD revision", `"modern"`}},
		{"negative timeout", args([]string{"list-tools", "--connect-timeout", "-5"}, demo()), 64,
			[]string{"--connect-timeout must be a positive number"}},
		{"bad --env", args([]string{"list-tools", "--env", "NOEQUALS"}, demo()), 64,
			[]string{`--env expects KEY=VALUE, got "NOEQUALS" with no "="`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tc.args...)
			r.wantCode(t, tc.code)
			r.wantStderr(t, tc.stderr...)
			r.wantNoStdout(t)
		})
	}
}

func TestToolErrorExits1WithResult(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "fail", "message=it broke"}, demo())...)
	r.wantCode(t, 1)
	if got := r.text(t); got != "it broke" {
		t.Errorf("want the content on stdout, got %q\n%s", got, r)
	}
	r = run(t, args([]string{"call", "fail", "message=it broke", "--raw"}, demo())...)
	r.wantCode(t, 1)
	var tr toolResult
	r.json(t, &tr)
	if !tr.IsError || len(tr.Content) == 0 || tr.Content[0].Text != "it broke" {
		t.Errorf("want isError true with the message in --raw\n%s", r)
	}
}
