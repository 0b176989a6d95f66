package e2e

import (
	"testing"
)

func TestValidateHealthy(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"validate", "--deep"}, demo())...)
	r.wantCode(t, 0)
	r.wantStdout(t, "Validation Result: PASS", "[PASS] tool_schema_validation: 17 tool(s), all well-formed",
		"[PASS] stdout_protocol_channel")
}

// The fixture makes every mistake validate looks for.
func TestValidateFindsWhatAStrictClientRejects(t *testing.T) {
	t.Parallel()
	r := run(t, "validate", "--", badServer)
	r.wantCode(t, 1)
	r.wantStdout(t, "Validation Result: FAIL",
		`[FAIL] tool_schema_validation: stringly inputSchema: type is "string", a client expects "object"`,
		"ghost inputSchema: required b never defined under properties",
		`duplicate tool "ok"`,
		"[WARN] resources_capability: resources is served (1 item(s)) but not advertised",
		"[FAIL] stdout_protocol_channel: 1 non-JSON line(s) on stdout",
		"[WARN] stderr_warnings: 1 line(s) look like a crash or an error",
		"#1  Error: could not read config.json")

	r = run(t, "validate", "--json", "--", badServer)
	var rep struct {
		Success   bool   `json:"success"`
		Status    string `json:"status"`
		Connected bool   `json:"connected"`
		Checks    []struct {
			Name, Status string
		} `json:"checks"`
	}
	r.json(t, &rep)
	if rep.Success || rep.Status != "FAIL" || !rep.Connected || len(rep.Checks) == 0 {
		t.Fatalf("--json report: %+v", rep)
	}
}

func TestValidateDeadServer(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"validate"}, demo("--crash-at-start", "port 5432 refused"))...)
	r.wantCode(t, 69)
	r.wantStdout(t, "Validation Result: FAIL", "[FAIL] handshake_connection: Failed to connect: Connection closed",
		"The server exited with code 1.", "demo-server: fatal: port 5432 refused")
}

func TestValidateModernEra(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"--protocol", "2026-07-28", "validate", "--deep"}, demo())...)
	r.wantCode(t, 0)
	r.wantStdout(t, "Protocol: 2026-07-28 (modern era)", "[PASS] discover_result",
		"[PASS] list_changed_stream: honored toolsListChanged, promptsListChanged, resourcesListChanged")
}
