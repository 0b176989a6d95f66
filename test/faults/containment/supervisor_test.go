//go:build !windows

package containment

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// TestHelperRunByHandSaysWhatItIs: the supervisor is entered through main
// (never an init function) and, run by hand without run-mcp's socket, says
// it is not a command instead of waiting for requests that never come.
func TestHelperRunByHandSaysWhatItIs(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	for _, args := range [][]string{supervise.Command("run-mcp")[1:], {supervise.Guard, supervise.ExecArg, "/bin/true", "true"}} {
		var stderr bytes.Buffer
		c := exec.Command(bin, args...)
		c.Stderr = &stderr
		err := c.Run()
		if code := exitCode(err); code != 64 {
			t.Errorf("run-mcp %q exited %d, want 64 (a usage error)\n%s", args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "they are not commands") {
			t.Errorf("run-mcp %q says %q, want it to say it is not a command", args, stderr.String())
		}
	}
}
