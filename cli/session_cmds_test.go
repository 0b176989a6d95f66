package cli

import (
	"testing"

	"github.com/run-mcp/run-mcp/cli/session"
)

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
