//go:build unix

package e2e

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestTooFewOpenFilesSaysSo: with an open-file limit too low to run a
// server, run-mcp says so in a sentence and how to raise it, and exits 69,
// instead of the Go runtime dying with a stack trace.
func TestTooFewOpenFilesSaysSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", `ulimit -n 8 && exec "$0" "$@"`, bin, "list-tools", "--", bin, "demo-server")
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 69 {
		t.Fatalf("run-mcp under ulimit -n 8 ended with %v, want exit 69\n%s", err, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"open-file limit", "ulimit -n 1024"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "goroutine") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
		t.Errorf("stderr is not the one sentence:\n%s", msg)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout has %q", stdout.String())
	}
}
