package mcpfront

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// get_mcp_server_stderr. Without since it shows what the current process
// wrote (the first and last lines kept since it started), as 3.0 did after
// a reconnect; since=N reads on from a cursor, across reconnects. The
// stdout-noise section is shown once: a reply to the cursor the last reply
// handed out shows only the noise that came after it.

func (f *front) stderr(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.Resolve(getStr(a, "connection"), false)
	if err != nil {
		return nil, err
	}
	start, err := c.StderrStart(ctx)
	if err != nil {
		return nil, err
	}
	since, current := getInt(a, "since", 0), !has(a, "since") && !has(a, "lines")
	if current {
		since = start
	}
	ex, ok, err := c.Stderr(ctx, since, getInt(a, "lines", 0))
	if err != nil {
		return nil, err
	}
	if !ok {
		return textResult("This connection has no process (an HTTP target, or one never started), so there is no stderr to read."), nil
	}
	stamps := true
	if has(a, "timestamps") {
		stamps = getBool(a, "timestamps")
	}
	var b strings.Builder
	b.WriteString(renderStderr(ex, current, start, stamps))
	if ev, err := c.Evidence(ctx); err == nil {
		look := stderrLook{cursor: ex.Total, start: start, noise: ev.NoiseTotal, errors: ev.ErrorsTotal}
		var prev *stderrLook
		if has(a, "since") {
			prev = f.looks.get(c.Name(), since)
		}
		b.WriteString(noiseSince(ev, prev, start))
		f.looks.put(c.Name(), look)
	}
	fmt.Fprintf(&b, "next: since=%d", ex.Total)
	return textResult(b.String()), nil
}

// renderStderr is the lines of an excerpt, one each. For the current
// process the elision marker counts that process's lines only, and a last
// line says where the earlier processes' lines are.
func renderStderr(ex wire.Excerpt, current bool, start int, stamps bool) string {
	shown := ex
	if current {
		shown.Total = ex.Total - start
	}
	lines := shown.Render(stamps)
	var b strings.Builder
	switch {
	case len(lines) > 0:
	case current:
		b.WriteString("(the current process has written no stderr lines yet)\n")
	default:
		b.WriteString("(no new stderr lines)\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if current && start > 0 {
		fmt.Fprintf(&b, "(lines 1–%d are from earlier processes of this connection: since=0 shows them too)\n", start)
	}
	return b.String()
}

// noiseSince is the stdout-noise section of a reply: whole, unless prev is
// the look that handed out this reply's cursor on the same process; then
// only what came after it, or one line when nothing did.
func noiseSince(ev wire.EvidenceSnapshot, prev *stderrLook, start int) string {
	if ev.NoiseTotal == 0 && ev.ErrorsTotal == 0 {
		return ""
	}
	if prev == nil || prev.start != start || prev.noise > ev.NoiseTotal || prev.errors > ev.ErrorsTotal {
		return noiseSection(ev)
	}
	newNoise, newErrors := ev.NoiseTotal-prev.noise, ev.ErrorsTotal-prev.errors
	if newNoise == 0 && newErrors == 0 {
		return fmt.Sprintf("\n(stdout noise: nothing new since your last look; %d line(s) and %d transport error(s) in all, listed by mcp_server_status)\n",
			ev.NoiseTotal, ev.ErrorsTotal)
	}
	fresh := ev
	fresh.Noise, fresh.Errors = tailFrom(ev.Noise, prev.noise), tailFrom(ev.Errors, prev.errors)
	fresh.NoiseTotal, fresh.ErrorsTotal = newNoise, newErrors
	return noiseSection(fresh)
}

// tailFrom is the entries after the first n (the log keeps the first ones,
// so entries past its bound are counted and not listed).
func tailFrom[T any](s []T, n int) []T {
	if n >= len(s) {
		return nil
	}
	return s[n:]
}

// stderrLook is what one get_mcp_server_stderr reply showed: the cursor it
// handed out, the process it was about, and how much stdout noise and how
// many transport errors there were.
type stderrLook struct {
	cursor, start, noise, errors int
}

// stderrLooks remembers the last look at each connection.
type stderrLooks struct {
	mu   sync.Mutex
	last map[string]stderrLook
}

// get is the last look at conn if it handed out cursor (nil otherwise).
func (l *stderrLooks) get(conn string, cursor int) *stderrLook {
	l.mu.Lock()
	defer l.mu.Unlock()
	look, ok := l.last[conn]
	if !ok || look.cursor != cursor {
		return nil
	}
	return &look
}

func (l *stderrLooks) put(conn string, look stderrLook) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]stderrLook{}
	}
	l.last[conn] = look
}
