package cli

import (
	"reflect"
	"strings"
	"testing"
)

// Without --, the first bare word starts the target, but never takes one of
// run-mcp's own long flags with it: that flag would silently go to the
// server while run-mcp ran without it.
func TestBareWordNeverSwallowsOurFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words []string
		l     layout
		code  int
		say   []string
	}{
		{"call", []string{"args", "hello", "--session", "X"}, layout{positionals: 1, argWords: true}, ExitDataErr,
			[]string{`"hello" is not an argument`, "put -- before it", "the target would take --session as its own flag"}},
		{"call, flag=value", []string{"args", "hello", "--raw=true"}, layout{positionals: 1, argWords: true}, ExitDataErr,
			[]string{`"hello" is not an argument`, "--raw"}},
		{"stderr", []string{"abc", "--session", "X"}, layout{optional: 1}, ExitUsage,
			[]string{`"abc" would start the target command`, "--session", "Put -- before the target command"}},
		{"listing", []string{"node", "srv.js", "--raw"}, layout{}, ExitUsage,
			[]string{`"node" would start the target command`, "--raw"}},
		{"count after --", []string{"--", "-5", "--session", "X"}, layout{optional: 1}, ExitUsage,
			[]string{`"-5" after -- would be the target command`, "A count goes before --"}},
		{"option after --", []string{"--", "--verbose", "node"}, layout{}, ExitUsage,
			[]string{`starts with "--verbose"`, "a command cannot start with '-'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, g := newTestCmd()
			_, err := splitArgs(cmd, tc.words, tc.l)
			if CodeOf(err) != tc.code {
				t.Fatalf("%q: exit %d (%v), want %d", tc.words, CodeOf(err), err, tc.code)
			}
			for _, s := range tc.say {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q: the message lacks %q:\n%v", tc.words, s, err)
				}
			}
			if g.session != "" {
				t.Errorf("nothing is parsed from a refused command line, got --session %q", g.session)
			}
		})
	}
}

// The target's own flags, and its shorthands that happen to be ours (-m,
// -e), still belong to it without --.
func TestTargetKeepsItsOwnFlagsWithoutDash(t *testing.T) {
	for _, words := range [][]string{
		{"node", "srv.js", "--verbose", "--port", "3000"},
		{"python", "-m", "my_server"},
		{"node", "-e", "require('./srv')"},
	} {
		cmd, _ := newTestCmd()
		sp, err := splitArgs(cmd, words, layout{})
		if err != nil || !reflect.DeepEqual(sp.target, words) {
			t.Errorf("%q: split %+v, err %v; want it all as the target", words, sp, err)
		}
	}
}

// An argument word needs a key, and UTF-8: JSON cannot carry other bytes,
// and replacing them would send what the user did not type.
func TestArgumentWordsNeedKeyAndUTF8(t *testing.T) {
	for _, tc := range []struct {
		words []string
		say   string
	}{
		{[]string{":=5"}, `":=5" has no key before its :=`},
		{[]string{"=5"}, `"=5" has no key before its =`},
		{[]string{"name=caf\xe9"}, `the value of "name" is not valid UTF-8 (byte 4 of it)`},
		{[]string{"n\xffme=x"}, "an argument's key is not valid UTF-8 (byte 2)"},
		{[]string{"{\"name\":\"caf\xe9\"}"}, "the JSON arguments given inline are not valid UTF-8 (byte 13)"},
	} {
		_, err := parseToolArgs(tc.words, false)
		if CodeOf(err) != ExitDataErr {
			t.Errorf("%q: exit %d (%v), want 65", tc.words, CodeOf(err), err)
			continue
		}
		if !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%q: the message lacks %q:\n%v", tc.words, tc.say, err)
		}
		if strings.ContainsAny(err.Error(), "\xe9\xff") {
			t.Errorf("%q: the message repeats the bad bytes:\n%q", tc.words, err)
		}
	}
	set, err := parseArgs([]string{"-"}, false, strings.NewReader("{\"a\":\"\xff\"}"))
	if CodeOf(err) != ExitDataErr || !strings.Contains(err.Error(), "from stdin (-) are not valid UTF-8") {
		t.Errorf("stdin: %v %v, want exit 65 naming stdin", set.values, err)
	}
	// A key with an "=" in its value, and an empty string value, are fine.
	args, err := parseToolArgs([]string{"eq=a=b", "empty=", "word=héllo"}, false)
	if err != nil || args["eq"] != "a=b" || args["empty"] != "" || args["word"] != "héllo" {
		t.Errorf("got %v, %v", args, err)
	}
}
