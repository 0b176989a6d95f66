//go:build !windows

package deadline

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

// bin is run-mcp under test; stuck the fixture server. Both are built once.
var bin, stuck string

func TestMain(m *testing.M) {
	cleanup := targets.BuildAll("run-mcp-deadline-", targets.Build{Out: &bin, Pkg: "./cmd/run-mcp"}, targets.Build{Out: &stuck, Pkg: "./test/fixtures/stuck"})
	goleak.VerifyTestMain(m, goleak.Cleanup(cleanup))
}

// patience bounds every run against a hang: the budgets set here are 1.5 s,
// so a run that needs this long has hung.
const patience = 60 * time.Second

// budget is the --request-timeout / --timeout every test sets, in ms.
const budget = "1500"

type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("run-mcp %s\nexit %d\n--- stdout ---\n%s\n--- stderr ---\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// run runs run-mcp with TMPDIR=tmp (sessions of one test share it) and fails
// the test if it does not end within patience.
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
	case ctx.Err() != nil:
		t.Fatalf("run-mcp hung: no end within %s\n%s", patience, r)
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run-mcp %s: %v\n%s", strings.Join(args, " "), err, r)
	}
	return r
}

// stuckServer is the target words: -- stuck [flags].
func stuckServer(flags ...string) []string {
	return append([]string{"--", stuck}, flags...)
}

func wantAll(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s: want %q in:\n%s", what, s, text)
		}
	}
}
