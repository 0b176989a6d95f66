package prespawn

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWanted(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{"list-tools -- node server.js", true},
		{"call echo message=hi -- ./server", true},
		{"call echo --raw -e K=V -- ./server --flag", true},
		{"validate -- python -m srv", true},
		{"call echo message=hi --session s -- ./server", false},
		{"call echo --session=s -- ./server", false},
		{"list-tools --help -- ./server", false},
		{"list-tools -- http://localhost:3000/mcp", false},
		{"list-tools -- https://example.com/mcp", false},
		{"list-tools --server name", false},
		{"list-tools --", false},
		{"servers -- ./server", false},
		{"--version", false},
		{"", false},
		{"call echo -- --session", true}, // after "--" the words are the server's
	}
	for _, c := range cases {
		if got := Wanted(strings.Fields(c.line)); got != c.want {
			t.Errorf("Wanted(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}

// A listing with nothing but its target after the subcommand has its target
// resolved at once, as the spawn would resolve it; anything else has none.
func TestEarlyTarget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an execute bit is what makes a file runnable here; Windows goes by its extension (and starts no spare)")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("PATH", filepath.Join(dir, "bin"))
	t.Setenv("RUN_MCP_TEST_SECRET", "not for the server")
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bin/srv", "local-srv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := supervise.TargetEnv(nil)
	for _, kv := range env {
		if strings.HasPrefix(kv, "RUN_MCP_TEST_SECRET=") {
			t.Fatalf("the target's environment has a variable not on the list: %q", env)
		}
	}
	early := []struct {
		line string
		want supervise.Target
	}{
		{"list-tools -- srv --flag", supervise.Target{Path: filepath.Join(bin, "srv"), Argv: []string{filepath.Join(bin, "srv"), "--flag"}}},
		{"list-resources -- ./local-srv", supervise.Target{Path: filepath.Join(dir, "local-srv"), Argv: []string{filepath.Join(dir, "local-srv")}}},
		{"list-prompts -- " + filepath.Join(bin, "srv") + " --session x", supervise.Target{Path: filepath.Join(bin, "srv"), Argv: []string{filepath.Join(bin, "srv"), "--session", "x"}}},
	}
	for _, c := range early {
		c.want.Env, c.want.Dir = env, dir
		got, ok := EarlyTarget(strings.Fields(c.line))
		if !ok || !got.Equal(c.want) {
			t.Errorf("EarlyTarget(%q) = %+v, %v; want %+v", c.line, got, ok, c.want)
		}
	}
	for _, line := range []string{
		"list-tools --raw -- srv",          // an option: parsed by the command tree
		"list-tools --session s -- srv",    // a session's daemon runs it
		"call echo message=hi -- srv",      // argument words and an output directory to check
		"read file:///x -- srv",            // a word before --
		"describe -- srv",                  // a usage error: describe needs a tool name
		"list-tools -- http://127.0.0.1/x", // nothing to spawn
		"list-tools -- no-such-srv",        // not on PATH: the spawn says so
		"list-tools -- ./plain",            // not executable: the spawn says so
		"list-tools --",
		"list-tools srv",
	} {
		if got, ok := EarlyTarget(strings.Fields(line)); ok {
			t.Errorf("EarlyTarget(%q) = %+v, want none", line, got)
		}
	}
}
