package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/wire"
)

func TestUnpassedEnv(t *testing.T) {
	t.Setenv("RUNMCP_UNIT_KEY", "sk-secret")
	t.Setenv("RUNMCP_UNIT_PASSED", "x")
	text := []string{
		"Error: RUNMCP_UNIT_KEY is not set",
		"RUNMCP_UNIT_PASSED ok, RUNMCP_UNIT_UNSET missing, PATH fine", // passed, unset, whitelisted
		"again RUNMCP_UNIT_KEY",
	}
	got := unpassedEnv(map[string]string{"RUNMCP_UNIT_PASSED": "x"}, text)
	if !reflect.DeepEqual(got, []string{"RUNMCP_UNIT_KEY"}) {
		t.Errorf("unpassedEnv = %q, want the one set but not passed, once", got)
	}
	h := envHint(got)
	if !strings.Contains(h, `--env RUNMCP_UNIT_KEY="$RUNMCP_UNIT_KEY"`) || strings.Contains(h, "sk-secret") {
		t.Errorf("hint %q", h)
	}
}

func TestDownloadHint(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"npx", []string{"-y", "@scope/server", "--port", "1"}, "npx may still be downloading @scope/server"},
		{"/usr/local/bin/uvx", []string{"mcp-server-fetch"}, "uvx may still be downloading mcp-server-fetch"},
		{`C:\nodejs\npx.cmd`, []string{"-y", "pkg"}, "npx may still be downloading pkg"},
		{"pnpm", []string{"dlx", "pkg"}, "pnpm may still be downloading pkg"},
		{"pnpm", []string{"run", "start"}, ""},
		{"node", []string{"server.js"}, ""},
	} {
		got := downloadHint(wire.Spec{Command: tc.cmd, Args: tc.args})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: %q, want %q", tc.cmd, tc.args, got, tc.want)
		}
	}
}
