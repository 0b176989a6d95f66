package bench

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// BenchmarkSessionWarmCall: a call from a shell against a warm session
// (the server already running behind its daemon). make bench measures the
// peers' warm calls beside it (docs/BENCHMARKS.md).
func BenchmarkSessionWarmCall(b *testing.B) {
	cmd, err := targets.ServerEverything()
	targets.Require(b, err)
	tmp := b.TempDir()
	b.Setenv("TMPDIR", tmp) // the session records live under the temp dir
	start := append([]string{runMCP, "list-tools", "--session", "bench", "--"}, cmd...)
	spawn(b, `"echo"`, start...)
	defer func() {
		c := exec.Command(runMCP, "close-session", "bench")
		c.Env = append(os.Environ(), "TMPDIR="+tmp)
		_ = c.Run()
	}()
	loop(b, func() time.Duration {
		return spawn(b, `"Echo: hi"`, runMCP, "call", "echo", "message=hi", "--session", "bench")
	})
}
