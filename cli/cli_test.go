package cli

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestShorthandArguments(t *testing.T) {
	args, err := parseToolArgs([]string{"name=Alice", "count:=5", "tags:=[\"a\"]", "eq=a=b", "big:=12345678901234567890"}, false)
	if err != nil {
		t.Fatal(err)
	}
	// Numbers stay exact: they reach the tool (and a session) as written.
	want := map[string]any{"name": "Alice", "count": json.Number("5"), "tags": []any{"a"}, "eq": "a=b", "big": json.Number("12345678901234567890")}
	if !reflect.DeepEqual(args, want) {
		t.Fatalf("got %v, want %v", args, want)
	}
	big, err := parseToolArgs([]string{"a:=12345678901234567890", `{"b":1.50}`}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(big); string(got) != `{"a":12345678901234567890,"b":1.50}` {
		t.Errorf("numbers re-encode as %s, want every digit as typed", got)
	}
	for _, bad := range [][]string{{"hello"}, {"n:=nope"}, {"{bad"}, {"n:=1 2"}} {
		_, err := parseToolArgs(bad, false)
		if CodeOf(err) != ExitDataErr {
			t.Errorf("%q: want exit 65, got %v", bad, err)
		}
	}
	if _, err := parseToolArgs([]string{"n:=5"}, true); CodeOf(err) != ExitDataErr {
		t.Errorf("prompt arguments must refuse key:=json, got %v", err)
	}
}

func newTestCmd() (*cobra.Command, *globals) {
	g := &globals{}
	root := &cobra.Command{Use: "run-mcp"}
	g.addPersistent(root)
	cmd := &cobra.Command{Use: "call", DisableFlagParsing: true}
	g.addHeadless(cmd)
	root.AddCommand(cmd)
	return cmd, g
}

func TestSplitWithAndWithoutDash(t *testing.T) {
	cmd, g := newTestCmd()
	sp, err := splitArgs(cmd, []string{"echo", "msg=hi", "--session", "dev", "--", "node", "srv.js", "--verbose"}, layout{positionals: 1, argWords: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.session != "dev" || !reflect.DeepEqual(sp.target, []string{"node", "srv.js", "--verbose"}) || !reflect.DeepEqual(sp.argWords, []string{"msg=hi"}) {
		t.Fatalf("split %+v session %q", sp, g.session)
	}
	// Without --, the first bare word starts the target and its flags are its own.
	cmd, _ = newTestCmd()
	sp, err = splitArgs(cmd, []string{"echo", "node", "srv.js", "--verbose"}, layout{positionals: 1, argWords: true})
	if err != nil || !reflect.DeepEqual(sp.target, []string{"node", "srv.js", "--verbose"}) {
		t.Fatalf("split %+v err %v", sp, err)
	}
}

func TestMisspelledFlagSuggests(t *testing.T) {
	cmd, _ := newTestCmd()
	_, err := splitArgs(cmd, []string{"echo", "--sesion", "x", "--", "node"}, layout{positionals: 1, argWords: true})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Fatalf("want exit 64, got %v", err)
	}
	if got := err.Error(); !contains(got, "did you mean --session?") {
		t.Fatalf("no suggestion in %q", got)
	}
}

func contains(s, sub string) bool {
	return strings.Contains(s, sub)
}
