//go:build !windows

package deadline

import (
	"strings"
	"testing"
)

// Negotiating the 2026-07-28 revision lives inside the connect budget: a
// dual-era server that takes 7 s to start (a cold npx, a JIT, a database)
// is reached in the modern era, pinned or under auto, from a shell and
// from the agent, never settled as legacy because it was slow.
func TestASlowDualEraServerIsReachedInTheModernEra(t *testing.T) {
	for _, protocol := range []string{"2026-07-28", "auto"} {
		t.Run("headless "+protocol, func(t *testing.T) {
			t.Parallel()
			r := run(t, t.TempDir(), append([]string{"list-tools", "--protocol", protocol}, stuckServer("--modern", "--start-delay", "7s")...)...)
			if r.code != 0 || !strings.Contains(r.stderr, "protocol 2026-07-28 (modern era)") {
				t.Fatalf("a dual-era server that starts in 7 s: %s", r)
			}
		})
		t.Run("agent "+protocol, func(t *testing.T) {
			t.Parallel()
			h := startAgent(t)
			text, isErr := h.call(t, "connect_to_mcp", map[string]any{"command": stuck, "args": stuckArgs("--modern", "--start-delay", "7s"), "protocol": protocol})
			if isErr || !strings.Contains(text, "Protocol: 2026-07-28 (modern era") {
				t.Fatalf("a dual-era server that starts in 7 s: %s", text)
			}
		})
	}
}

// A server that never answers server/discover under auto is not taken for
// a legacy one: the connect fails within its budget, saying the probe got
// no answer and what to do.
func TestAnUnansweredProbeFailsTheConnect(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), append([]string{"list-tools", "--protocol", "auto", "--connect-timeout", budget}, stuckServer("--never", "server/discover")...)...)
	if r.code != 69 {
		t.Fatalf("want exit 69, got %s", r)
	}
	wantAll(t, "an unanswered probe", r.stderr, "did not answer server/discover within 1.5s", "use protocol legacy")
}
