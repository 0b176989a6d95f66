package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// list_available_mcp_servers reads the configs the clients on this machine
// keep: every entry with its command and env names (never values), and a
// file that cannot be parsed reported with its reason, never skipped.
func TestListAvailableServers(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".cursor/mcp.json", `{
	// the server I am writing
	"mcpServers": {"mine": {"command": "node", "args": ["dist/index.js"], "env": {"API_KEY": "sk-do-not-show"},},},
}`)
	write(".codex/config.toml", "[mcp_servers.tomlish]\ncommand = \"python\"\nargs = [\"server.py\"]\nenabled = false\n")
	write(".gemini/settings.json", `{"mcpServers": {"broken": }`)
	h := startWith(t, hostConfig{env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}})
	text := mustText(t, h, "list_available_mcp_servers", nil)
	wantContains(t, "listing", text, "2 server(s) registered, 1 config file(s) that could not be read",
		`"name": "mine"`, `"source": "cursor (user)"`, `"command": "node"`, `"API_KEY"`,
		`"name": "tomlish"`, `"disabled": true`, filepath.Join(home, ".gemini", "settings.json"))
	if strings.Contains(text, "sk-do-not-show") {
		t.Fatalf("an env value was shown:\n%s", text)
	}
	text = mustText(t, h, "list_available_mcp_servers", map[string]any{"filter": "python"})
	wantContains(t, "filtered", text, "1 server(s) registered", `"name": "tomlish"`)
}
