package agent

import (
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// An agent server whose target is quiet costs nothing while it waits: no
// thread of run-mcp's, nor of its supervisor's, is woken. The stderr relay
// waits for stderr to arrive rather than asking every connection on a
// clock, and the supervisor looks for silently arriving orphans only while
// one can come. (They were woken 62 times in 2 s before.)
func TestAQuietAgentServerSleeps(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()})
	targets.Quiet(t, h.cmd.Process.Pid, "run-mcp's agent server and its supervisor")
}
