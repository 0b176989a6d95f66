package npm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

// bin is a run-mcp built from this checkout; launcher is npm/run-mcp's
// bin script, run with node.
var bin, launcher string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "run-mcp-npm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = targets.BuildBinary(dir, "./cmd/run-mcp")
	if err == nil {
		var root string
		root, err = targets.RepoRoot()
		launcher = filepath.Join(root, "npm", "run-mcp", "bin", "run-mcp.js")
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

// patience bounds each run against a hang; nothing here comes close to it.
const patience = 60 * time.Second

// node finds Node.js, which CI always has (it installs the npm servers).
func node(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		err = fmt.Errorf("node is not on PATH, so the npm launcher cannot be run: %w", err)
	}
	targets.Require(t, err)
	return p
}

// outcome is what a person sees of one run.
type outcome struct {
	stdout, stderr string
	code           int
}

// runCmd runs argv with extra environment to completion.
func runCmd(t *testing.T, env []string, argv ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	o := outcome{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		o.code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v\nstderr: %s", strings.Join(argv, " "), err, o.stderr)
	}
	return o
}
