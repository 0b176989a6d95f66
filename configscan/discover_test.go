package configscan

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func (m *machine) wantEntries() []Entry {
	claudeJSON := filepath.Join(m.home, ".claude.json")
	mcpJSON := filepath.Join(m.proj, ".mcp.json")
	desktop := filepath.Join(m.home, ".config", "Claude", "claude_desktop_config.json")
	cline := filepath.Join(m.home, ".config", "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
	codex := filepath.Join(m.home, ".codex", "config.toml")
	gemini := filepath.Join(m.home, ".gemini", "settings.json")
	windsurf := filepath.Join(m.home, ".codeium", "windsurf", "mcp_config.json")
	zed := filepath.Join(m.home, ".config", "zed", "settings.json")
	vscodeWS := filepath.Join(m.proj, ".vscode", "mcp.json")
	local := "claude-code (local: " + m.proj + ")"
	noLaunch := "no command and no url: nothing to start or connect to; add \"command\" for a local server or \"url\" for a remote one"
	return []Entry{
		{Name: "cc-remote", Source: "claude-code (user)", File: claudeJSON, Type: "http", URL: "https://mcp.example.com/mcp", Headers: []string{"Authorization"}, Disabled: true},
		{Name: "cc-user", Source: "claude-code (user)", File: claudeJSON, Type: "stdio", Command: "npx", Args: []string{"-y", "@acme/user-server"}, EnvKeys: []string{"CC_USER_TOKEN"}},
		{Name: "cc-local", Source: local, File: claudeJSON, Type: "stdio", Command: "go", Args: []string{"run", "./cmd/server"}, EnvKeys: []string{"DB_PASSWORD"}},
		{Name: "cc-proj-off", Source: "claude-code (project)", File: mcpJSON, Type: "stdio", Command: "python3", Args: []string{"-m", "tools_server"}, Disabled: true},
		{Name: "my-server", Source: "claude-code (project)", File: mcpJSON, Type: "stdio", Command: "node", Args: []string{"build/index.js"}, EnvKeys: []string{"API_KEY"}},
		{Name: "no-launch", Source: "claude-code (project)", File: mcpJSON, Args: []string{"--verbose"}, Problem: noLaunch},
		{Name: "corp-tools", Source: "claude-code (managed)", File: filepath.Join(m.sys, "etc", "claude-code", "managed-mcp.json"), Type: "sse", URL: "https://corp.example/sse"},
		{Name: "array-command", Source: "claude-desktop", File: desktop, Problem: "command is an array, not a string; put the program in \"command\" and its arguments in \"args\"; " + noLaunch},
		{Name: "filesystem", Source: "claude-desktop", File: desktop, Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop"}},
		{Name: "cursor-remote", Source: "cursor (user)", File: filepath.Join(m.home, ".cursor", "mcp.json"), Type: "http", URL: "https://cursor.example/mcp", Headers: []string{"X-Api-Key"}},
		{Name: "cursor-proj", Source: "cursor (project)", File: filepath.Join(m.proj, ".cursor", "mcp.json"), Type: "stdio", Command: "uvx", Args: []string{"mcp-server-git", "--repository", "."}},
		{Name: "github", Source: "vscode (workspace)", File: vscodeWS, Type: "http", URL: "https://api.githubcopilot.com/mcp/", Headers: []string{"Authorization"}},
		{Name: "vs-local", Source: "vscode (workspace)", File: vscodeWS, Type: "stdio", Command: "node", Args: []string{"server.js"}, Cwd: "${workspaceFolder}", EnvKeys: []string{"VS_SECRET"}},
		{Name: "vs-user", Source: "vscode (user)", File: filepath.Join(m.home, ".config", "Code", "User", "mcp.json"), Type: "stdio", Command: "docker", Args: []string{"run", "-i", "--rm", "mcp/fetch"}},
		{Name: "legacy", Source: "vscode (settings.json)", File: filepath.Join(m.home, ".config", "Code - Insiders", "User", "settings.json"), Type: "stdio", Command: "legacy-mcp", EnvKeys: []string{"LEGACY"}},
		{Name: "cline-off", Source: "cline", File: cline, Type: "stdio", Command: "node", Args: []string{"/opt/weather/index.js"}, Disabled: true},
		{Name: "cline-sse", Source: "cline", File: cline, Type: "sse", URL: "http://localhost:3000/sse"},
		{Name: "cline-stream", Source: "cline", File: cline, Type: "http", URL: "http://localhost:3001/mcp"},
		{Name: "copilot-local", Source: "copilot-cli", File: filepath.Join(m.root, "copilot-home", "mcp-config.json"), Type: "stdio", Command: "npx", Args: []string{"-y", "@playwright/mcp@latest"}, EnvKeys: []string{"PW"}},
		{Name: "codex-docs", Source: "codex (user)", File: codex, Type: "stdio", Command: "npx", Args: []string{"-y", "mcp-docs"}, Cwd: "/srv/docs", EnvKeys: []string{"DOCS_TOKEN", "HOME_TOKEN", "PATH_EXTRA"}},
		{Name: "codex-off", Source: "codex (user)", File: codex, Type: "stdio", Command: "codex-off-server", Disabled: true},
		{Name: "codex-remote", Source: "codex (user)", File: codex, Type: "http", URL: "https://codex.example/mcp", Headers: []string{"Authorization", "X-Auth", "X-Team"}},
		{Name: "codex-proj", Source: "codex (project)", File: filepath.Join(m.proj, ".codex", "config.toml"), Type: "stdio", Command: "cargo", Args: []string{"run", "--bin", "mcp"}},
		{Name: "gem-excluded", Source: "gemini (user)", File: gemini, Type: "stdio", Command: "python", Args: []string{"srv.py"}, Cwd: "./srv", Disabled: true},
		{Name: "gem-http", Source: "gemini (user)", File: gemini, Type: "http", URL: "https://gem.example/mcp", Headers: []string{"Authorization"}},
		{Name: "gem-sse", Source: "gemini (user)", File: gemini, Type: "sse", URL: "http://localhost:8080/sse"},
		{Name: "gem-proj", Source: "gemini (project)", File: filepath.Join(m.proj, ".gemini", "settings.json"), Type: "stdio", Command: "bun", Args: []string{"x.ts"}},
		{Name: "ws-off", Source: "windsurf", File: windsurf, Type: "stdio", Command: "npx", Args: []string{"ws-mcp"}, Disabled: true},
		{Name: "ws-remote", Source: "windsurf", File: windsurf, Type: "http", URL: "https://ws.example/mcp", Headers: []string{"Authorization"}},
		{Name: "zed-ext", Source: "zed (user)", File: zed, Problem: "provided by a Zed extension: its command is not in this file, so it cannot be launched from here"},
		{Name: "zed-new", Source: "zed (user)", File: zed, Type: "stdio", Command: "zed-mcp", Args: []string{"--stdio"}, EnvKeys: []string{"ZED_KEY"}},
		{Name: "zed-off", Source: "zed (user)", File: zed, Type: "stdio", Command: "zed-off", Disabled: true},
		{Name: "zed-old", Source: "zed (user)", File: zed, Type: "stdio", Command: "old-mcp", Args: []string{"a"}, EnvKeys: []string{"OLD_KEY"}},
		{Name: "zed-remote", Source: "zed (user)", File: zed, Type: "http", URL: "https://zed.example/mcp", Headers: []string{"Authorization"}},
		{Name: "zed-proj", Source: "zed (project)", File: filepath.Join(m.proj, ".zed", "settings.json"), Type: "stdio", Command: "./bin/srv"},
	}
}

func TestDiscoverEveryClient(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	got := Discover(m.options())
	want := m.wantEntries()
	gotBy := byKey(got.Entries)
	for _, w := range want {
		g, ok := gotBy[w.Source+"|"+w.Name]
		if !ok {
			t.Errorf("missing %s from %s", w.Name, w.Source)
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s (%s):\n got %+v\nwant %+v", w.Name, w.Source, g, w)
		}
	}
	if len(got.Entries) != len(want) {
		t.Errorf("got %d entries, want %d: %v", len(got.Entries), len(want), entryNames(got.Entries))
	}
	// want is written in the documented order: client table, file, name.
	if !slices.Equal(entryNames(got.Entries), entryNames(want)) {
		t.Errorf("order:\n got %v\nwant %v", entryNames(got.Entries), entryNames(want))
	}
}

func TestValuesNeverAppear(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	// A TOML value left unquoted makes the parser quote what it choked on.
	write(t, filepath.Join(m.proj, ".codex", "config.toml"), "[mcp_servers.x]\ncommand = \"x\"\nenv = { TOKEN = s3cr3tunquoted }\n")
	r := Discover(m.options())
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.Index(string(out), "s3cr3t"); i >= 0 {
		t.Fatalf("a value leaked into the result: …%s…", out[max(0, i-80):min(len(out), i+40)])
	}
	if strings.Contains(string(out), "hunterhunter") {
		t.Fatalf("a TOML parse error quoted a value: %s", out)
	}
	if !strings.Contains(string(out), `expected value but found … instead`) {
		t.Fatalf("the TOML parse error should be reported, value elided: %+v", r.Errors)
	}
	if !strings.Contains(string(out), "DOCS_TOKEN") || !strings.Contains(string(out), "X-Api-Key") {
		t.Fatal("env and header names should be listed")
	}
}

func TestBrokenFilesReported(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	write(t, filepath.Join(m.proj, ".codex", "config.toml"), "[mcp_servers.x\ncommand = \"x\"\n")
	write(t, filepath.Join(m.home, ".cursor", "mcp.json"), `{"mcpServers": ["not", "an", "object"]}`)
	write(t, filepath.Join(m.proj, ".cursor", "mcp.json"), "")
	r := Discover(m.options())
	want := map[string]string{
		filepath.Join(m.sys, "etc", "gemini-cli", "settings.json"): "JSON, even allowing comments and trailing commas: line 3, column 28: an unexpected character after object value",
		filepath.Join(m.proj, ".codex", "config.toml"):             "not valid TOML: line 1, column 15: expected '.' or ']'",
		filepath.Join(m.home, ".cursor", "mcp.json"):               `"mcpServers" is an array, not an object`,
		filepath.Join(m.proj, ".cursor", "mcp.json"):               "the file is empty",
	}
	if len(r.Errors) != len(want) {
		t.Errorf("got %d errors, want %d: %+v", len(r.Errors), len(want), r.Errors)
	}
	for _, fe := range r.Errors {
		if frag, ok := want[fe.File]; !ok || !strings.Contains(fe.Reason, frag) {
			t.Errorf("error for %s (%s): %q, want it to contain %q", fe.File, fe.Source, fe.Reason, frag)
		}
	}
	if e, ok := byKey(r.Entries)["gemini (user)|gem-sse"]; !ok || e.Type != "sse" {
		t.Error("one broken file must not hide the others")
	}
}

func TestSearchedListsMissingPaths(t *testing.T) {
	m := newMachine(t)
	r := Discover(m.options())
	if len(r.Entries) != 0 || len(r.Errors) != 0 {
		t.Fatalf("empty machine: %+v", r)
	}
	for _, p := range []string{
		filepath.Join(m.home, ".claude.json"),
		filepath.Join(m.cwd, ".mcp.json"),
		filepath.Join(m.proj, ".mcp.json"),
		filepath.Join(m.sys, "etc", "claude-code", "managed-mcp.json"),
		filepath.Join(m.home, ".codeium", "windsurf", "mcp_config.json"),
		filepath.Join(m.home, ".copilot", "mcp-config.json"),
		filepath.Join(m.home, ".config", "zed", "settings.json"),
	} {
		if !contains(r.Searched, p) {
			t.Errorf("Searched lacks %s", p)
		}
	}
	// The project walk stops at the repo root (the dir with .git).
	if contains(r.Searched, filepath.Join(m.home, "work", ".mcp.json")) {
		t.Error("the project walk went past the .git directory")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
