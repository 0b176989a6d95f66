package e2e

import (
	"slices"
	"testing"
)

func TestProtocolPinModernDemo(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"--protocol", "2026-07-28", "list-tools"}, demo())...)
	r.wantCode(t, 0)
	if names := r.toolNames(t); !slices.Contains(names, "echo") {
		t.Errorf("tools %q", names)
	}
	if _, protocol := r.connectedLine(t); protocol != "2026-07-28" {
		t.Errorf("Connected line protocol %q, want 2026-07-28\n%s", protocol, r)
	}
	r.wantStderr(t, "protocol 2026-07-28 (modern era)")
}

func TestProtocolPinModernCallDemo(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"--protocol", "2026-07-28", "call", "echo", "message=hi", "--raw"}, demo())...)
	r.wantCode(t, 0)
	var env rawEnvelope
	r.json(t, &env)
	if env.Protocol != "2026-07-28" {
		t.Errorf("envelope protocol %q, want 2026-07-28\n%s", env.Protocol, r)
	}
}

func TestProtocolAutoDemo(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"--protocol", "auto", "list-tools"}, demo())...)
	r.wantCode(t, 0)
	if _, protocol := r.connectedLine(t); protocol != "2026-07-28" {
		t.Errorf("auto against a dual-era server: protocol %q, want 2026-07-28", protocol)
	}
}

func TestProtocolPinModernEverythingFails(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"--protocol", "2026-07-28", "list-tools"}, target)...)
	r.wantCode(t, 69)
	r.wantNoStdout(t)
	r.wantStderr(t, "protocol 2026-07-28 was pinned", "does not serve the pinned revision", "--protocol auto")
	r.wantWithin(t, 2*generous) // the server/discover probe alone may take its 5 s budget
}

func TestProtocolAutoEverythingFallsBack(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"--protocol", "auto", "list-tools"}, target)...)
	r.wantCode(t, 0)
	if _, protocol := r.connectedLine(t); protocol != "2025-11-25" {
		t.Errorf("auto against a legacy server: protocol %q, want 2025-11-25", protocol)
	}
}
