package configscan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFilter(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	cases := map[string][]string{
		"CURSOR":         {"cursor-remote", "cursor-proj"},                    // source and file
		"mcp-server-git": {"cursor-proj"},                                     // an arg
		"zed.example":    {"zed-remote"},                                      // the url
		"legacy-MCP":     {"legacy"},                                          // the command, any case
		"cc-":            {"cc-remote", "cc-user", "cc-local", "cc-proj-off"}, // the name
	}
	for needle, want := range cases {
		opts := m.options()
		opts.Filter = needle
		r := Discover(opts)
		if got := entryNames(r.Entries); !slices.Equal(got, want) {
			t.Errorf("filter %q: got %v, want %v", needle, got, want)
		}
	}
	opts := m.options()
	opts.Filter = "gemini"
	if r := Discover(opts); len(r.Errors) != 1 || r.Errors[0].Source != "gemini (system)" {
		t.Errorf("filter keeps the matching file errors: %+v", r.Errors)
	}
}

func entryNames(entries []Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

func TestFileOption(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	write(t, filepath.Join(m.cwd, "servers.conf"), "[mcp_servers.toml-in-disguise]\ncommand = \"srv\"\n")
	write(t, filepath.Join(m.cwd, "package.json"), `{"name": "x", "version": "1.0.0"}`)
	cases := []struct {
		file, wantErr string
		want          []string
	}{
		{file: "../../.vscode/mcp.json", want: []string{"github", "vs-local"}},
		{file: "~/.codex/config.toml", want: []string{"codex-docs", "codex-off", "codex-remote"}},
		{file: "~/.config/zed/settings.json", want: []string{"zed-ext", "zed-new", "zed-off", "zed-old", "zed-remote"}},
		{file: "~/.config/Code - Insiders/User/settings.json", want: []string{"legacy"}},
		{file: "servers.conf", want: []string{"toml-in-disguise"}},
		{file: "missing.json", wantErr: "no such file"},
		{file: "package.json", wantErr: "found no server table"},
		{file: filepath.Join(m.sys, "etc", "gemini-cli", "settings.json"), wantErr: "line 3, column 28: an unexpected character"},
	}
	for _, c := range cases {
		opts := m.options()
		opts.File = c.file
		r := Discover(opts)
		if got := entryNames(r.Entries); !slices.Equal(got, orEmpty(c.want)) {
			t.Errorf("file %s: got %v, want %v", c.file, got, c.want)
		}
		for _, e := range r.Entries {
			if e.Source != "file" || !filepath.IsAbs(e.File) {
				t.Errorf("file %s: entry %+v should have source file and an absolute path", c.file, e)
			}
		}
		if len(r.Searched) != 1 {
			t.Errorf("file %s: searched %v, want only that file", c.file, r.Searched)
		}
		if c.wantErr != "" && (len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Reason, c.wantErr)) {
			t.Errorf("file %s: errors %+v, want one containing %q", c.file, r.Errors, c.wantErr)
		}
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestScanFindsStrayFileTwoLevelsUp(t *testing.T) {
	m := newMachine(t)
	m.writeClaudeCode(t)
	stray := filepath.Join(m.proj, "team-servers.json") // cwd is proj/pkg/api
	write(t, stray, `{
  // shared by the team
  "mcpServers": {"stray": {"command": "./bin/team-mcp", "env": {"T": "s3cr3t"}}},
}`)
	write(t, filepath.Join(m.proj, "nested.json"), `{"config": {"mcpServers": {"deep": {"command": "x"}}}}`)
	write(t, filepath.Join(m.proj, "broken-unrelated.json"), `{"name": `)
	write(t, filepath.Join(m.cwd, "broken-mcp.json"), `{"mcpServers": {`)
	write(t, filepath.Join(m.proj, "huge.json"), `{"mcpServers": {"huge": {"command": "x"}}, "pad": "`+strings.Repeat("x", maxScanSize)+`"}`)
	write(t, filepath.Join(m.proj, "node_modules", "pkg.json"), `{"mcpServers": {"nm": {"command": "x"}}}`)

	opts := m.options()
	if r := Discover(opts); byKey(r.Entries)["scan|stray"].Name != "" {
		t.Fatal("found by scan without Scan set")
	}
	opts.Scan = true
	r := Discover(opts)
	var scanned []Entry
	for _, e := range r.Entries {
		if e.Source == "scan" && strings.HasPrefix(e.File, m.root) {
			scanned = append(scanned, e)
		}
	}
	want := Entry{Name: "stray", Source: "scan", File: stray, Type: "stdio", Command: "./bin/team-mcp", EnvKeys: []string{"T"}}
	if len(scanned) != 1 || !reflectEqual(scanned[0], want) {
		t.Fatalf("scan found %+v, want only %+v (the known .mcp.json, nested, huge and node_modules files are skipped)", scanned, want)
	}
	if len(r.Errors) != 1 || r.Errors[0].File != filepath.Join(m.cwd, "broken-mcp.json") || r.Errors[0].Source != "scan" {
		t.Errorf("a broken file mentioning mcpServers is reported, an unrelated one is not: %+v", r.Errors)
	}
	if !contains(r.Searched, filepath.Join(m.proj, "*.json")) {
		t.Errorf("Searched should list the scanned directories: %v", r.Searched)
	}
	if n := len(byKeyAll(r.Entries, "my-server")); n != 1 {
		t.Errorf("my-server from the known .mcp.json listed %d times", n)
	}
}

func byKeyAll(entries []Entry, name string) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func TestHomeIsNotAlsoAProject(t *testing.T) {
	m := newMachine(t)
	m.writeEveryClient(t)
	m.cwd = m.home // no .git up to /: the project walk passes through home
	r := Discover(m.options())
	for _, name := range []string{"cursor-remote", "gem-sse", "codex-docs"} {
		got := byKeyAll(r.Entries, name)
		if len(got) != 1 || !strings.HasSuffix(got[0].Source, "(user)") {
			t.Errorf("%s: %+v, want once, in user scope", name, got)
		}
	}
	if n := len(byKeyAll(r.Entries, "my-server")); n != 0 {
		t.Errorf("the repo's .mcp.json is not above home: found %d", n)
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	m := newMachine(t)
	xdg, codexHome, claudeDir := filepath.Join(m.root, "xdg"), filepath.Join(m.root, "codex"), filepath.Join(m.root, "claude")
	m.env["XDG_CONFIG_HOME"] = xdg
	m.env["CODEX_HOME"] = codexHome
	m.env["CLAUDE_CONFIG_DIR"] = claudeDir
	write(t, filepath.Join(xdg, "Code", "User", "mcp.json"), `{"servers": {"xdg-vscode": {"command": "a"}}}`)
	write(t, filepath.Join(xdg, "zed", "settings.json"), `{"context_servers": {"xdg-zed": {"command": "b"}}}`)
	write(t, filepath.Join(xdg, ".copilot", "mcp-config.json"), `{"mcpServers": {"xdg-copilot": {"command": "c"}}}`)
	write(t, filepath.Join(codexHome, "config.toml"), "[mcp_servers.codex-home]\ncommand = \"d\"\n")
	write(t, filepath.Join(claudeDir, ".claude.json"), `{"mcpServers": {"claude-dir": {"command": "e"}}}`)
	write(t, filepath.Join(m.home, ".codex", "config.toml"), "[mcp_servers.not-read]\ncommand = \"x\"\n")
	r := Discover(m.options())
	want := []string{"claude-dir", "xdg-vscode", "xdg-copilot", "codex-home", "xdg-zed"}
	if got := entryNames(r.Entries); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDarwinPaths(t *testing.T) {
	m := newMachine(t)
	m.env["XDG_CONFIG_HOME"] = filepath.Join(m.root, "ignored-on-macos")
	support := filepath.Join(m.home, "Library", "Application Support")
	write(t, filepath.Join(support, "Claude", "claude_desktop_config.json"), `{"mcpServers": {"mac-desktop": {"command": "a"}}}`)
	write(t, filepath.Join(support, "Code", "User", "mcp.json"), `{"servers": {"mac-vscode": {"command": "b"}}}`)
	write(t, filepath.Join(m.sys, "Library", "Application Support", "ClaudeCode", "managed-mcp.json"), `{"mcpServers": {"mac-managed": {"command": "c"}}}`)
	write(t, filepath.Join(m.home, ".config", "zed", "settings.json"), `{"context_servers": {"mac-zed": {"command": "d"}}}`)
	opts := m.options()
	opts.GOOS = "darwin"
	r := Discover(opts)
	want := []string{"mac-managed", "mac-desktop", "mac-vscode", "mac-zed"}
	if got := entryNames(r.Entries); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestClaudeLocalScopeThroughSymlink(t *testing.T) {
	m := newMachine(t)
	link := filepath.Join(m.root, "link")
	if err := os.Symlink(m.proj, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	write(t, filepath.Join(m.home, ".claude.json"), `{"projects": {
  "`+m.proj+`": {"mcpServers": {"by-real-path": {"command": "a"}}},
  "`+filepath.Join(m.proj, "pkg")+`": {"mcpServers": {"by-parent": {"command": "b"}}, "disabledMcpServers": ["by-parent"]},
  "`+filepath.Join(m.proj, "pkg", "api", "deeper")+`": {"mcpServers": {"below-cwd": {"command": "c"}}}
}}`)
	opts := m.options()
	opts.Cwd = filepath.Join(link, "pkg", "api")
	r := Discover(opts)
	got := map[string]string{}
	for _, e := range r.Entries {
		got[e.Name] = e.Source
	}
	if got["by-real-path"] != "claude-code (local: "+m.proj+")" || got["by-parent"] == "" || got["below-cwd"] != "" {
		t.Errorf("local scope: %v", got)
	}
	if e := byKeyAll(r.Entries, "by-parent"); len(e) != 1 || !e[0].Disabled {
		t.Errorf("disabledMcpServers should switch by-parent off: %+v", e)
	}
}
