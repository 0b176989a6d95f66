package targets_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRepoRoot(t *testing.T) {
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "package.json", "package-lock.json"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("RepoRoot() = %s, but: %v", root, err)
		}
	}
}

// TestServerEverythingInstalled fails in CI (CI=true) when node_modules is
// missing, and skips elsewhere.
func TestServerEverythingInstalled(t *testing.T) {
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	if len(cmd) != 3 || cmd[2] != "stdio" || !strings.HasSuffix(filepath.ToSlash(cmd[1]), targets.EverythingEntry) {
		t.Fatalf("ServerEverything() = %q", cmd)
	}
	if fi, err := os.Stat(cmd[1]); err != nil || fi.IsDir() {
		t.Fatalf("entry file %s: %v", cmd[1], err)
	}
}

func TestBuildBinaryHello(t *testing.T) {
	bin, err := targets.BuildBinary(t.TempDir(), "./test/bench/hello")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(bin) != "hello" || !filepath.IsAbs(bin) {
		t.Errorf("BuildBinary path = %s", bin)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "hello\n" {
		t.Fatalf("hello: %q, %v", out, err)
	}
}

// TestServersListTools spawns each real server through the bare client and
// checks it lists some tools: the entry paths and arguments are right.
func TestServersListTools(t *testing.T) {
	tmp := t.TempDir()
	servers := []struct {
		name string
		cmd  func() ([]string, error)
	}{
		{"everything", targets.ServerEverything},
		{"filesystem", func() ([]string, error) { return targets.ServerFilesystem(tmp) }},
		{"memory", func() ([]string, error) { return targets.ServerMemory(filepath.Join(tmp, "memory.jsonl")) }},
		{"sequential-thinking", targets.ServerSequentialThinking},
	}
	bin, err := targets.BuildBinary(t.TempDir(), "./test/bench/bareclient")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			cmd, err := s.cmd()
			targets.Require(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			c := exec.CommandContext(ctx, bin, cmd...)
			var stderr strings.Builder
			c.Stderr = &stderr
			out, err := c.Output()
			if err != nil {
				t.Fatalf("bareclient %q: %v\n%s", cmd, err, stderr.String())
			}
			n, err := strconv.Atoi(strings.TrimSpace(string(out)))
			if err != nil || n <= 0 {
				t.Fatalf("bareclient %q printed %q, want a tool count > 0", cmd, out)
			}
			t.Logf("%s: %d tools", s.name, n)
		})
	}
}

func TestServerArgumentsChecked(t *testing.T) {
	if _, err := targets.ServerFilesystem(""); err == nil {
		t.Error("ServerFilesystem(\"\") gave no error")
	}
	if _, err := targets.ServerMemory(""); err == nil {
		t.Error("ServerMemory(\"\") gave no error")
	}
	cmd, env, err := targets.ServerMemoryEnv("rel.jsonl")
	targets.Require(t, err)
	if len(env) != 1 || !strings.HasPrefix(env[0], "MEMORY_FILE_PATH=/") || len(cmd) != 2 {
		t.Errorf("ServerMemoryEnv = %q, %q", cmd, env)
	}
}

// A build of run-mcp builds its demo server beside it, which `run-mcp
// demo-server` runs.
func TestBuildBinaryRunMCPBuildsTheDemoBeside(t *testing.T) {
	dir := t.TempDir()
	bin, err := targets.BuildBinary(dir, targets.RunMCP)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(bin) != "run-mcp" {
		t.Errorf("BuildBinary path = %s", bin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "demo-server", "--help").Output()
	if err != nil || !strings.Contains(string(out), "--crash-at-start") {
		t.Fatalf("run-mcp demo-server --help: %v\n%s", err, out)
	}
}
