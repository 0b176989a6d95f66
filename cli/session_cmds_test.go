package cli

import (
	"testing"

	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/wire"
)

// The newest process's lines start after the last marker between lives;
// with one life, at the start; with the marker lost in the ring's gap, at
// the tail.
func TestLifeStart(t *testing.T) {
	line := func(seq int, text string) wire.Line { return wire.Line{Seq: seq, Text: text} }
	marker := func(a, b int) string { return wire.LifeMarker(a, "The server exited with code 1.", b) }
	for _, tc := range []struct {
		name     string
		ex       wire.Excerpt
		connects int
		want     int
	}{
		{"one life", wire.Excerpt{Lines: []wire.Line{line(1, "a"), line(2, "b")}}, 1, 0},
		{"two lives", wire.Excerpt{Lines: []wire.Line{line(1, "a"), line(2, marker(10, 11)), line(3, "b")}}, 2, 2},
		{"three lives", wire.Excerpt{Lines: []wire.Line{line(1, marker(9, 10)), line(2, "a"), line(3, marker(10, 11))}}, 3, 3},
		{"a server that prints a marker-like line", wire.Excerpt{Lines: []wire.Line{line(1, "[--- process x ended ---]")}}, 1, 0},
		{"marker elided", wire.Excerpt{Lines: []wire.Line{line(1, "head"), line(2000, "tail")}, Elided: 1998, ElidedBefore: 2000}, 2, 1999},
	} {
		if got := lifeStart(tc.ex, tc.connects); got != tc.want {
			t.Errorf("%s: lifeStart = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A row shows the daemon's current word over its record: no pid once the
// server is gone, and the negotiated revision rather than the mode.
func TestSessionRow(t *testing.T) {
	rec := &session.Record{Name: "s", Pid: 4242, Protocol: "auto", Negotiated: "2026-07-28"}
	row := listing(rec, &session.Info{Phase: "failed"})
	if row.Pid != nil || row.Protocol != "2026-07-28" || row.ProtocolMode != "auto" {
		t.Errorf("after a failed reconnect: pid %v protocol %q mode %q", row.Pid, row.Protocol, row.ProtocolMode)
	}
	row = listing(rec, &session.Info{Phase: "live", Pid: 4300, Protocol: "2025-11-25"})
	if row.Pid == nil || *row.Pid != 4300 || row.Protocol != "2025-11-25" {
		t.Errorf("live: pid %v protocol %q", row.Pid, row.Protocol)
	}
	// A daemon that did not answer: the record's word.
	row = listing(&session.Record{Name: "s", Pid: 4242, Protocol: "legacy"}, nil)
	if row.Pid == nil || *row.Pid != 4242 || row.Protocol != "legacy" {
		t.Errorf("not answering: pid %v protocol %q", row.Pid, row.Protocol)
	}
}
