//go:build !windows

// Package hostile plays another local user, a careless or hostile host and
// a careless or hostile server against the built run-mcp binary: a planted
// or world-writable output directory, a swapped result file, a config file
// with a secret inside a broken escape, --env values that must never be
// echoed, a host line over 64 MB, an object id, JSON of the wrong types
// from a host or a server, a request with an empty method, control bytes
// on stderr, an HTTP answer of 2 GB, and a redirect to another origin that
// must not take the configured headers along. Tests that need root (to give a file to another user) skip
// with a message when not root; CI runs as root.
//
// HOSTILE_BIN=<path> runs the suite against another build (an older one,
// to see each fault before its fix).
package hostile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

// bin is the run-mcp binary under test; liar is test/fixtures/liar;
// rusage is test/bench/rusage, which measures a command's peak memory.
var bin, liar, rusage string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "run-mcp-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = os.Getenv("HOSTILE_BIN")
	if bin == "" {
		bin, err = targets.BuildBinary(dir, "./cmd/run-mcp")
	}
	if err == nil {
		liar, err = targets.BuildBinary(dir, "./test/fixtures/liar")
	}
	if err == nil {
		rusage, err = targets.BuildBinary(dir, "./test/bench/rusage")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// patience bounds every run against hangs; nothing comes close to it.
const patience = 60 * time.Second

// attackerUID is the other user of the tests that run as root.
const attackerUID = 65534

func needRoot(t *testing.T) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to play another user (chown to uid 65534); CI runs this as root")
	}
}

type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("run-mcp %q\nexit %d\n--- stdout ---\n%s\n--- stderr ---\n%s", r.args, r.code, r.stdout, r.stderr)
}

// run runs run-mcp to completion with TMPDIR=tmp.
func run(t *testing.T, tmp string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "TMPDIR="+tmp)
	c.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("%v (a hang or a crash)\n%s", err, r)
	}
	return r
}

func (r result) want(t *testing.T, code int, stderr ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\n%s", r.code, code, r)
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q\n%s", s, r)
		}
	}
}

func wantAbsent(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s contains %q:\n%s", what, s, text)
		}
	}
}
