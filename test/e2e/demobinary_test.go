//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runBinary runs the binary at path with args and a PATH of the system's
// directories only, so nothing of run-mcp's is found there.
func runBinary(t *testing.T, path string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, path, args...)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "PATH=/usr/bin:/bin", "TMPDIR="+t.TempDir())
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// run-mcp demo-server runs the run-mcp-demo beside run-mcp's binary, also
// when run-mcp is started through a symbolic link from elsewhere.
func TestDemoServerIsTheBinaryBesideRunMCP(t *testing.T) {
	t.Parallel()
	link := filepath.Join(t.TempDir(), "run-mcp")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, link, "demo-server", "--help")
	r.wantCode(t, 0)
	r.wantStdout(t, "run-mcp-demo [flags]", "--crash-at-start")
	r = runBinary(t, link, "demo-server", "--no-such-flag")
	r.wantCode(t, 64)
	r.wantStderr(t, "unknown flag: --no-such-flag", "run-mcp demo-server --help")

	r = runBinary(t, link, "list-tools", "--", link, "demo-server")
	r.wantCode(t, 0)
	r.wantStdout(t, `"name": "echo"`)
}

// Without run-mcp-demo beside it or on PATH, demo-server says what is
// missing and how to get it.
func TestDemoServerMissingSaysHowToGetIt(t *testing.T) {
	t.Parallel()
	alone := filepath.Join(t.TempDir(), "run-mcp")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, alone, "demo-server")
	r.wantCode(t, 66)
	r.wantStderr(t, "run-mcp-demo", "neither beside run-mcp", filepath.Dir(alone), "make build", "reinstall run-mcp")
	if strings.Contains(r.stderr, "goroutine") {
		t.Errorf("a missing demo server printed a stack:\n%s", r)
	}
}
