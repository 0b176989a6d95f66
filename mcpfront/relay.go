package mcpfront

import (
	"context"

	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// Relay limits from the specification: a chatty startup must not flood the
// agent's context.
const (
	relayEvery = 250 * time.Millisecond
	relayLines = 20
)

type relayCursor struct {
	ring *wire.Ring
	seen int
}

// relayStderr forwards each target's new stderr lines to the host as
// logging messages, at most relayLines per message every relayEvery, with a
// since=N pointer for the rest.
func (f *front) relayStderr(ctx context.Context) {
	cursors := map[string]*relayCursor{}
	tick := time.NewTicker(relayEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !f.host.allows(mcp.LoggingLevelInfo) {
			continue
		}
		f.host.flushDropped()
		for _, c := range f.reg.Conns() {
			ring, err := c.StderrRing(ctx)
			if err != nil || ring == nil {
				continue
			}
			cur := cursors[c.Name()]
			if cur == nil || cur.ring != ring {
				cur = &relayCursor{ring: ring}
				cursors[c.Name()] = cur
			}
			f.relayOnce(c.Name(), cur)
		}
	}
}

func (f *front) relayOnce(conn string, cur *relayCursor) {
	total := cur.ring.Total()
	if total <= cur.seen {
		return
	}
	ex := cur.ring.Since(cur.seen)
	lines := ex.Render(true)
	more := 0
	if len(lines) > relayLines {
		more = total - cur.seen - relayLines
		lines = lines[:relayLines]
	}
	first := cur.seen
	cur.seen = total
	text := strings.Join(lines, "\n")
	if more > 0 {
		text += fmt.Sprintf("\n[... %s more line(s): get_mcp_server_stderr connection=%s since=%d ...]", wire.Thousands(more), conn, first+relayLines)
	}
	_ = f.out.notify("notifications/message", map[string]any{"level": "info", "logger": "target-stderr",
		"data": text, "_meta": map[string]any{"run-mcp/connection": conn}})
}
