package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// patience bounds each run against a hang; nothing here comes close to it.
const patience = 60 * time.Second

func versionOf(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		t.Fatalf("run-mcp --version: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func git(ctx context.Context, root string, args ...string) (string, error) {
	c := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	out, err := c.Output()
	return strings.TrimSpace(string(out)), err
}

// A binary built from a checkout with plain `go build` names the commit it
// was built from, and says when the tree had uncommitted changes.
func TestVersionNamesTheCommitOfACheckout(t *testing.T) {
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	short, err := git(ctx, root, "rev-parse", "--short", "HEAD")
	if err != nil {
		t.Skipf("skipping: %s is not a git checkout (git rev-parse --short HEAD: %v)", root, err)
	}
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		// The go command looks for a .git directory: a git worktree (a .git
		// file) or a submodule gets no VCS stamp, by the go command's design.
		t.Skipf("skipping: %s/.git is not a directory (a git worktree?), so the go command records no commit; run this test in a clone", root)
	}
	porcelain, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	// -buildvcs=true overrides a GOFLAGS=-buildvcs=false in the environment.
	bin, err := targets.BuildBinaryFlags(t.TempDir(), "./cmd/run-mcp", "-buildvcs=true")
	if err != nil {
		t.Fatal(err)
	}
	v := versionOf(t, bin)
	if !strings.Contains(v, "commit "+short) {
		t.Errorf("run-mcp --version says %q, want it to name commit %s (git rev-parse --short HEAD)", v, short)
	}
	if dirty := porcelain != ""; dirty != strings.Contains(v, "uncommitted changes") {
		t.Errorf("run-mcp --version says %q; git status --porcelain lists %d changed paths", v, len(strings.Split(porcelain, "\n")))
	}
	if !strings.HasPrefix(v, "run-mcp ") || !strings.Contains(v, "committed 20") {
		t.Errorf("run-mcp --version says %q, want \"run-mcp <version> (commit …, committed <date>)\"", v)
	}
}

// A release build prints exactly what was stamped in, and the agent server
// reports the same version to its host as serverInfo.version.
func TestStampedVersionIsWhatTheHostSees(t *testing.T) {
	const ver, rev, when = "9.8.7-test", "0123456789abcdef0123456789abcdef01234567", "2026-12-01T10:00:00Z"
	bin, err := targets.BuildBinaryFlags(t.TempDir(), "./cmd/run-mcp",
		"-ldflags=-X main.version="+ver+" -X main.commit="+rev+" -X main.date="+when+" -X main.treeState=clean")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versionOf(t, bin), "run-mcp 9.8.7-test (commit 0123456789ab, built 2026-12-01T10:00:00Z)"; got != want {
		t.Errorf("run-mcp --version says %q, want %q", got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, bin)
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	_, _ = stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"version-test","version":"1"}}}` + "\n"))
	line, readErr := bufio.NewReader(stdout).ReadBytes('\n')
	_ = stdin.Close() // a closed stdin stops the agent server
	if err := c.Wait(); err != nil {
		t.Errorf("the agent server did not exit cleanly on EOF: %v", err)
	}
	if readErr != nil {
		t.Fatalf("no answer to initialize: %v", readErr)
	}
	var resp struct {
		Result struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("initialize answer %q: %v", line, err)
	}
	if resp.Result.ServerInfo.Version != ver {
		t.Errorf("serverInfo = %+v, want version %q (the same as --version)", resp.Result.ServerInfo, ver)
	}
}
