package mcpfront

import (
	"context"

	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// Relay limits from the specification: a chatty startup must not flood the
// agent's context.
const (
	relayEvery = 250 * time.Millisecond
	relayLines = 20
)

// relayStderr forwards each target's new stderr lines to the host as
// logging messages, at most relayLines per message and one look every
// relayEvery, with a since=N pointer for the rest, and says how many
// notifications the forwarding budget held back. Positions run on across a
// connection's reconnects, so one cursor per connection follows every
// process of it.
//
// It looks only when there is something to send: a connection's stderr grew
// (the engine's StderrNews) or the host changed what it may be sent. An
// agent server whose targets are quiet does not wake up at all.
func (f *front) relayStderr(ctx context.Context) {
	seen := map[*actors.Conn]int{}
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.reg.StderrNews():
		case <-f.host.changed:
		}
		// One look per relayEvery: what comes meanwhile goes with the next.
		if wait := relayEvery - time.Since(last); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		last = time.Now()
		seen = f.relayAll(ctx, seen)
	}
}

// relayAll relays what every connection's server wrote after its cursor in
// seen, when the host allows it, and returns the cursors to keep.
func (f *front) relayAll(ctx context.Context, seen map[*actors.Conn]int) map[*actors.Conn]int {
	if !f.host.allows(mcp.LoggingLevelInfo) {
		return seen
	}
	f.host.flushDropped()
	conns := f.reg.Conns()
	live := make(map[*actors.Conn]int, len(conns))
	for _, c := range conns {
		live[c] = f.relayOnce(ctx, c, seen[c])
	}
	return live
}

// relayOnce relays what c's server wrote after since and returns the new
// cursor.
func (f *front) relayOnce(ctx context.Context, c *actors.Conn, since int) int {
	ex, ok, err := c.Stderr(ctx, since, 0)
	if err != nil || !ok || ex.Total <= since {
		return since
	}
	conn := c.Name()
	lines := ex.Render(true)
	more := 0
	if len(lines) > relayLines {
		more = ex.Total - since - relayLines
		lines = lines[:relayLines]
	}
	text := strings.Join(lines, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n[... %s more line(s): get_mcp_server_stderr connection=%s since=%d ...]", wire.Thousands(more), conn, since+relayLines)
	}
	_ = f.out.notify("notifications/message", map[string]any{"level": "info", "logger": "target-stderr",
		"data": text, "_meta": map[string]any{"run-mcp/connection": conn}})
	return ex.Total
}
