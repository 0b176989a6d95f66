package cli

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// The binary serves as run-mcp's supervisor of the targets its tests start
// (see supervise.Invoked): dispatch before anything else.
func TestMain(m *testing.M) {
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	goleak.VerifyTestMain(m)
}

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

func TestWhereTheTargetStartsWithoutDash(t *testing.T) {
	l := layout{positionals: 1, argWords: true}
	// After a JSON-object argument a bare word starts the target (3.0).
	cmd, _ := newTestCmd()
	sp, err := splitArgs(cmd, []string{"echo", `{"message":"hi"}`, "node", "srv.js"}, l)
	if err != nil || !reflect.DeepEqual(sp.target, []string{"node", "srv.js"}) || !reflect.DeepEqual(sp.argWords, []string{`{"message":"hi"}`}) {
		t.Fatalf("split %+v err %v", sp, err)
	}
	// Our flags after the JSON object stay ours.
	cmd, g := newTestCmd()
	sp, err = splitArgs(cmd, []string{"echo", `{"message":"hi"}`, "--session", "X"}, l)
	if err != nil || g.session != "X" || len(sp.target) != 0 {
		t.Fatalf("split %+v session %q err %v", sp, g.session, err)
	}
	// After key=value words a bare word is exit 65: never spawned, and
	// --session after it is not swallowed into a target.
	cmd, _ = newTestCmd()
	_, err = splitArgs(cmd, []string{"echo", "message=hi", "stray", "--session", "X"}, l)
	if CodeOf(err) != ExitDataErr || !strings.Contains(err.Error(), `"stray" is not an argument`) {
		t.Fatalf("want exit 65 naming stray, got %v", err)
	}
	// "-" and @path are JSON-object arguments too.
	cmd, _ = newTestCmd()
	sp, err = splitArgs(cmd, []string{"echo", "-", "node", "srv.js"}, l)
	if err != nil || !reflect.DeepEqual(sp.argWords, []string{"-"}) || !reflect.DeepEqual(sp.target, []string{"node", "srv.js"}) {
		t.Fatalf("split %+v err %v", sp, err)
	}
}

func TestArgumentsFromStdinAndFile(t *testing.T) {
	set, err := parseArgs([]string{"-"}, false, strings.NewReader(`{"n": 12345678901234567890}`))
	if err != nil || set.values["n"] != json.Number("12345678901234567890") {
		t.Fatalf("stdin: %v %v", set.values, err)
	}
	path := t.TempDir() + "/args.json"
	if err := os.WriteFile(path, []byte(`{"message":"from a file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err = parseArgs([]string{"@" + path, "count=5"}, false, strings.NewReader(""))
	if err != nil || set.values["message"] != "from a file" || !set.shorthand["count"] || set.shorthand["message"] {
		t.Fatalf("file: %+v %v", set, err)
	}
	if _, err := parseArgs([]string{"@" + path + ".missing"}, false, strings.NewReader("")); CodeOf(err) != ExitDataErr {
		t.Errorf("a missing file is exit 65, got %v", err)
	}
	if _, err := parseArgs([]string{"{bad"}, false, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "Invalid JSON") {
		t.Errorf("want Invalid JSON, got %v", err)
	}
}

func TestShorthandTypedBySchema(t *testing.T) {
	def := json.RawMessage(`{"name":"t","inputSchema":{"type":"object","properties":{
		"count":{"type":"integer"},"ratio":{"type":"number"},"on":{"type":"boolean"},"name":{"type":"string"},
		"either":{"type":["integer","string"]},"opt":{"type":["integer","null"]},"n2":{"type":"integer"}}}}`)
	args := map[string]any{"count": "5", "ratio": "1.50", "on": "true", "name": "5", "either": "7", "opt": "3", "n2": "five", "typed": json.Number("9")}
	short := map[string]bool{"count": true, "ratio": true, "on": true, "name": true, "either": true, "opt": true, "n2": true}
	conv := convertShorthand(def, args, short)
	want := map[string]any{"count": json.Number("5"), "ratio": json.Number("1.50"), "on": true, "name": "5", "either": "7", "opt": json.Number("3"), "n2": "five", "typed": json.Number("9")}
	if !reflect.DeepEqual(args, want) {
		t.Fatalf("got %v, want %v", args, want)
	}
	var names []string
	for _, c := range conv {
		names = append(names, c.Argument+":"+c.Type)
	}
	if got := strings.Join(names, ","); got != "count:integer,on:boolean,opt:integer,ratio:number" {
		t.Errorf("conversions %s", got)
	}
}

// A definition written in ways the scan leaves to encoding/json (keys in
// another case, spaces, a property that is not an object) converts as
// encoding/json reads it.
func TestShorthandTypedByUnusualDefinitions(t *testing.T) {
	for _, tc := range []struct{ def, want string }{
		{`{"InputSchema":{"Properties":{"n":{"Type":"integer"}}}}`, "n:integer"},
		{` { "inputSchema" : { "properties" : { "n" : { "type" : [ "integer" ] } } } } `, "n:integer"},
		{`{"inputSchema":{"properties":{"n":{"TYPE":"integer"},"b":{"type":"boolean"}}}}`, "b:boolean,n:integer"},
		{`{"inputSchema":{"properties":{"n":{"type":"integer","type":"string"}}}}`, ""},
		{`{"inputSchema":{"properties":{"n":{"type":"string","type":"integer"}}}}`, "n:integer"},
		{`{"inputSchema":{"properties":{"n":true,"b":{"type":"boolean"}}}}`, "b:boolean"},
		{`{"inputSchema":{"properties":[]}}`, ""},
		{`{"inputSchema":null}`, ""},
		{`{"name":"no schema"}`, ""},
	} {
		args := map[string]any{"n": "5", "b": "true"}
		var names []string
		for _, c := range convertShorthand(json.RawMessage(tc.def), args, map[string]bool{"n": true, "b": true}) {
			names = append(names, c.Argument+":"+c.Type)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("%s: conversions %q, want %q", tc.def, got, tc.want)
		}
	}
}

func TestInternalErrorKeepsItsStack(t *testing.T) {
	err := internalf("a bug")
	var b strings.Builder
	if code := report(err, &b, true); code != ExitInternal {
		t.Fatalf("exit %d", code)
	}
	// The stack is where the error was made (this test), not report's.
	if !strings.Contains(b.String(), "TestInternalErrorKeepsItsStack") || !strings.Contains(b.String(), "arose here") {
		t.Errorf("no stack of where it arose:\n%s", b.String())
	}
	b.Reset()
	report(exitf(ExitUsage, "bad flag"), &b, true)
	if strings.Contains(b.String(), "goroutine") {
		t.Errorf("a usage error printed a stack:\n%s", b.String())
	}
}
