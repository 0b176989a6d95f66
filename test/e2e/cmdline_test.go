package e2e

import (
	"strings"
	"testing"
)

// A first bare word never takes run-mcp's own flags with it into a target
// command, a target after -- cannot start with '-', and argument words
// are refused when they have no key or are not UTF-8: each exits with its
// code, spawns nothing and says how to write what was meant.
func TestCommandLineRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"bare word before --session", []string{"call", "args", "hello", "--session", "X"}, 65,
			[]string{`"hello" is not an argument`, "put -- before it"}},
		{"bare word before --session on stderr", []string{"stderr", "abc", "--session", "X"}, 64,
			[]string{`"abc" would start the target command`, "--session", "Put -- before the target command"}},
		{"negative count after --", []string{"stderr", "--", "-5", "--session", "X"}, 64,
			[]string{`"-5" after -- would be the target command`, "A count goes before --"}},
		{"count of 0", args([]string{"stderr", "0"}, demo()), 64,
			[]string{`count must be a positive number of lines, got "0"`}},
		{"empty key", args([]string{"call", "args", ":=5"}, demo()), 65,
			[]string{`":=5" has no key before its :=`}},
		{"value not UTF-8", args([]string{"call", "echo", "message=caf\xe9"}, demo()), 65,
			[]string{`the value of "message" is not valid UTF-8`, "never replaces bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tc.args...)
			r.wantCode(t, tc.code)
			r.wantStderr(t, tc.stderr...)
			r.wantNoStdout(t)
			if strings.Contains(r.stderr, "Connecting") {
				t.Errorf("a refused command line must spawn nothing\n%s", r)
			}
		})
	}
}
