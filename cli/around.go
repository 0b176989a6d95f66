package cli

import (
	"context"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// watch notes where the server's stderr and stdout evidence stood before a
// request that is not a call (a listing, a read, a prompt), so --raw can
// add what happened around it, as call --raw does. One-shot, the server
// lived for this command alone: everything from its start counts.
type watch struct {
	c          *actors.Conn
	oneShot    bool
	stderrMark int
	ev         wire.EvidenceSnapshot
	// lines and hasStderr are the stderr once read (read says so): --raw
	// and --show-stderr show the same lines.
	lines     []string
	hasStderr bool
	read      bool
}

func startWatch(ctx context.Context, x *job, c *actors.Conn) *watch {
	w := &watch{c: c, oneShot: x.g.bound == nil}
	if !w.oneShot {
		if ex, ok, err := c.Stderr(ctx, 0, 1); err == nil && ok {
			w.stderrMark = ex.Total
		}
		w.ev, _ = c.Evidence(ctx)
	}
	return w
}

// fields are the keys --raw adds: stderr, stdout_noise, transport_errors
// and protocol (stderr_unavailable for a target run-mcp did not start).
func (w *watch) fields(ctx context.Context, protocol string) []field {
	stderr, ok := w.stderr(ctx)
	out := []field{{"stderr", orEmpty(stderr)}}
	if !ok {
		out = append(out, field{"stderr_unavailable", httpLimits})
	}
	out = append(out, redirectsField(ctx, w.c, ok)...)
	now, _ := w.c.Evidence(ctx)
	if !w.oneShot {
		now = since(w.ev, now)
	}
	out = append(out, noiseFields(now)...)
	return append(out, field{"transport_errors", orEmpty(now.Errors)}, field{"protocol", protocol})
}

// stderr is what the server wrote since the mark, once the drain has read
// all it wrote before the answer (SyncStderr), or where that cannot be told
// once no line has arrived for stderrSettle.
func (w *watch) stderr(ctx context.Context) ([]string, bool) {
	if !w.read {
		w.lines, w.hasStderr = w.readStderr(ctx)
		w.read = true
	}
	return w.lines, w.hasStderr
}

// show prints the stderr on stderr for --show-stderr, as call does: each
// line marked as the server's, or, over HTTP in a session, that there is
// none (one-shot, the Connected line said so).
func (w *watch) show(ctx context.Context, x *job) {
	if !x.g.showStderr {
		return
	}
	lines, ok := w.stderr(ctx)
	for _, l := range lines {
		x.io.status("[server stderr] %s", l)
	}
	if !ok && !w.oneShot {
		x.io.status("run-mcp: --show-stderr has nothing to show: %s", httpLimits)
	}
}

func (w *watch) readStderr(ctx context.Context) ([]string, bool) {
	if w.c.SyncStderr(ctx) {
		e, ok, err := w.c.Stderr(ctx, w.stderrMark, 0)
		if err != nil || !ok {
			return nil, false
		}
		return e.Render(false), true
	}
	var ex wire.Excerpt
	prev := -1
	for range 10 {
		e, ok, err := w.c.Stderr(ctx, w.stderrMark, 0)
		if err != nil || !ok {
			return nil, false
		}
		ex = e
		if e.Total == prev {
			break
		}
		prev = e.Total
		time.Sleep(stderrSettle)
	}
	return ex.Render(false), true
}

// since is the evidence added after before (the lists keep their first
// entries, so the new ones are those past before's).
func since(before, now wire.EvidenceSnapshot) wire.EvidenceSnapshot {
	out := wire.EvidenceSnapshot{NoiseTotal: now.NoiseTotal - before.NoiseTotal, ErrorsTotal: now.ErrorsTotal - before.ErrorsTotal}
	if len(now.Noise) > len(before.Noise) {
		out.Noise = now.Noise[len(before.Noise):]
	}
	if len(now.Errors) > len(before.Errors) {
		out.Errors = now.Errors[len(before.Errors):]
	}
	return out
}
