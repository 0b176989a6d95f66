package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connect_to_mcp server=NAME launches a server registered with a client on
// this machine as that client would (its command, args and env, ${VAR}
// expanded from run-mcp's environment); an ambiguous or unknown name says
// which files define it, or what is registered. auto_connect and
// validate_mcp_server take server too.
func TestConnectByServerName(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	write := func(rel, body string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const secret = "agent-secret-never-shown"
	write(".cursor/mcp.json", `{"mcpServers": {
  "solo": {"command": `+q(bin)+`, "args": ["demo-server"], "env": {"DEMO_TOKEN": "${AGENT_TEST_SECRET}"}},
  "twice": {"command": `+q(bin)+`, "args": ["demo-server"]}
}}`)
	write(".claude.json", `{"mcpServers": {"twice": {"command": `+q(bin)+`, "args": ["demo-server"]}}}`)
	h := startWith(t, hostConfig{env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "AGENT_TEST_SECRET=" + secret}})

	text := mustText(t, h, "connect_to_mcp", map[string]any{"server": "solo"})
	wantContains(t, "connect server=solo", text, "Connected to MCP server (PID: ", "Command: "+bin+" demo-server")
	wantNotContains(t, "connect server=solo", text, secret)
	got := mustText(t, h, "call_mcp_primitive", tool("env", map[string]any{"name": "DEMO_TOKEN"}))
	if got != `DEMO_TOKEN is set: "`+secret+`"` {
		t.Errorf("the entry's env did not reach the server: %q", got)
	}

	text = mustFail(t, h, "connect_to_mcp", map[string]any{"server": "twice", "name": "second"})
	wantContains(t, "ambiguous name", text, "INVALID_ARGUMENT", `"twice" is defined 2 times`,
		filepath.Join(home, ".claude.json"), filepath.Join(home, ".cursor", "mcp.json"),
		`server="claude-code (user):twice"`, `server="cursor (user):twice"`)
	text = mustText(t, h, "connect_to_mcp", map[string]any{"server": "cursor:twice", "name": "second"})
	wantContains(t, "connect server=cursor:twice", text, "Connected to MCP server", "Connection: second")

	text = mustFail(t, h, "connect_to_mcp", map[string]any{"server": "sol", "name": "third"})
	wantContains(t, "unknown name", text, `no MCP server named "sol"`, `Did you mean "solo"?`, "Registered: solo, twice.", "list_available_mcp_servers")
	text = mustFail(t, h, "connect_to_mcp", map[string]any{"server": "solo", "command": bin, "name": "third"})
	wantContains(t, "server and command", text, "INVALID_ARGUMENT", "give command or server, not both")

	got = mustText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "auto"},
		"connection": "auto", "auto_connect": map[string]any{"server": "solo"}})
	if got != "echo: auto" {
		t.Errorf("auto_connect server=solo: got %q", got)
	}

	text = mustText(t, h, "validate_mcp_server", map[string]any{"server": "solo"})
	if !strings.Contains(text, "PASS") {
		t.Errorf("validate_mcp_server server=solo did not pass:\n%s", text)
	}
	text = mustText(t, h, "list_available_mcp_servers", nil)
	wantContains(t, "listing", text, "connect_to_mcp server=<name>")
	wantNotContains(t, "listing", text, secret)
}
