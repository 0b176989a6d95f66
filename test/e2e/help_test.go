package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Each subcommand's --help lists the flags it uses: the agent server's own
// are not on the shell commands, and a listing has no call flags.
func TestHelpListsOnlyTheFlagsACommandUses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd      string
		has, not []string
	}{
		{"sessions", nil, []string{"--max-connections", "--scan", "--out-dir", "--timeout", "--protocol"}},
		{"close-session", nil, []string{"--max-connections", "--scan", "--raw"}},
		{"list-tools", []string{"--raw", "--session", "--show-stderr", "--connect-timeout"}, []string{"--max-connections", "--max-text", "--out-dir", "--timeout", "--task", "--deep"}},
		{"call", []string{"--timeout", "--out-dir", "--max-text", "--task", "read from stdin", "@path"}, []string{"--max-connections", "--deep"}},
		{"validate", []string{"--deep", "--json"}, []string{"--max-connections", "--timeout", "--show-stderr"}},
	} {
		r := run(t, tc.cmd, "--help")
		r.wantCode(t, 0)
		r.wantStdout(t, tc.has...)
		for _, n := range tc.not {
			// A line of the flags list: "  -t, --timeout ms   …", "      --scan   …".
			if regexp.MustCompile(`(?m)^\s+(-\w, )?` + n + `\b`).MatchString(r.stdout) {
				t.Errorf("%s --help lists %s, which it does not use\n%s", tc.cmd, n, r)
			}
		}
	}
	// --raw says what it prints for each command.
	call, list := run(t, "call", "--help"), run(t, "list-tools", "--help")
	call.wantStdout(t, "Print the whole tool result plus stderr")
	list.wantStdout(t, "Print an object with every tool")
}

// Words a command does not take are refused in words, not in the parser's.
func TestUsageErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"close-session"}, "close-session needs the name of the session to close"},
		{args([]string{"call", "echo", "message=hi", "--timeout", "5s"}, demo()), "for 5s write --timeout 5000"},
		{args([]string{"list-tools", "--deep"}, demo()), "--deep belongs to run-mcp validate, not to run-mcp list-tools"},
		{[]string{"sessions", "--max-connections", "4"}, "--max-connections belongs to run-mcp (the agent server)"},
	} {
		r := run(t, tc.args...)
		r.wantCode(t, 64)
		r.wantStderr(t, tc.say)
		r.wantNoStdout(t)
		for _, jargon := range []string{"strconv", "accepts 1 arg(s)", "invalid syntax"} {
			if strings.Contains(r.stderr, jargon) {
				t.Errorf("%q speaks the parser's language: %q\n%s", tc.args, jargon, r)
			}
		}
	}
}

// From a shell, a truncated text points to the file holding all of it:
// read_result is a tool of the agent server, which a shell cannot call.
func TestHeadlessTruncationPointsToTheFile(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	r := run(t, args([]string{"call", "big_text", "chars:=200", "--max-text", "50", "--out-dir", out}, demo())...)
	r.wantCode(t, 0)
	text := r.text(t)
	if strings.Contains(text, "read_result") {
		t.Errorf("the note names read_result, which a shell cannot call:\n%s", text)
	}
	_, note, ok := strings.Cut(text, "[truncated at 50 of 200 chars. Full text saved to ")
	path, _, ok2 := strings.Cut(note, "; read it there")
	if !ok || !ok2 {
		t.Fatalf("no note naming the file:\n%s", text)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != 200 {
		t.Errorf("the file the note names holds %d bytes (%v), want the 200 chars", len(b), err)
	}
}
