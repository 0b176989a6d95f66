package e2e

import (
	"slices"
	"strings"
	"testing"
)

func TestListToolsDemo(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"list-tools"}, demo())...)
	r.wantCode(t, 0)
	names := r.toolNames(t)
	for _, want := range []string{"echo", "crash", "big_text", "noise", "stderr", "slow", "fail"} {
		if !slices.Contains(names, want) {
			t.Errorf("list-tools lacks %q: %q", want, names)
		}
	}
	if _, protocol := r.connectedLine(t); protocol != "2025-11-25" {
		t.Errorf("default protocol %q, want the legacy 2025-11-25", protocol)
	}
	r.wantStderr(t, "run-mcp-demo", "(legacy era)")
	if strings.Contains(r.stderr, "Warning:") {
		t.Errorf("a well-behaved server drew a warning\n%s", r)
	}
}

func TestCallEchoDemo(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "echo", "message=hi"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: hi" {
		t.Errorf("text %q, want %q\n%s", got, "echo: hi", r)
	}
	r = run(t, args([]string{"call", "echo", "message=hi", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var tr toolResult
	r.json(t, &tr)
	if tr.IsError || len(tr.Content) != 1 || tr.Content[0].Text != "echo: hi" {
		t.Errorf("--raw: want the whole result, isError false\n%s", r)
	}
}

func TestCallJSONAndShorthandArgs(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "echo", `{"message":"from json"}`}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "echo: from json" {
		t.Errorf("JSON args: text %q", got)
	}
	r = run(t, args([]string{"call", "add", "a:=2", "b:=3.5"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "5.5" {
		t.Errorf("add a:=2 b:=3.5: text %q, want 5.5\n%s", got, r)
	}
}

func TestEnvIsExplicitOnly(t *testing.T) {
	t.Parallel()
	// run-mcp's own environment does not reach the target...
	r := run(t, args([]string{"call", "env", "name=HOME_AWAY_SECRET"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "HOME_AWAY_SECRET is not set" {
		t.Errorf("text %q\n%s", got, r)
	}
	// ...only what --env passes, split at the first "=".
	r = run(t, args([]string{"call", "env", "name=API_KEY", "--env", "API_KEY=sk-1=2"}, demo())...)
	r.wantCode(t, 0)
	if got := r.text(t); got != `API_KEY is set: "sk-1=2"` {
		t.Errorf("text %q\n%s", got, r)
	}
}

func TestEverythingCallEcho(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"call", "echo", "message=hi"}, target)...)
	r.wantCode(t, 0)
	if got := r.text(t); got != "Echo: hi" {
		t.Errorf("text %q, want %q\n%s", got, "Echo: hi", r)
	}
	r.connectedLine(t)
}

func TestEverythingListTools(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"list-tools"}, target)...)
	r.wantCode(t, 0)
	names := r.toolNames(t)
	for _, want := range []string{"echo", "get-tiny-image", "trigger-long-running-operation"} {
		if !slices.Contains(names, want) {
			t.Errorf("list-tools lacks %q: %q", want, names)
		}
	}
}
