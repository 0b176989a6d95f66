package configscan

import "path/filepath"

// location is one file where a client may keep its server list.
type location struct {
	source string
	path   string
	key    string // dotted path to the server table: "mcpServers", "servers", "mcp.servers", "context_servers", "mcp_servers"
	toml   bool   // Codex's config.toml
	remote string // type of an entry that has only "url": "http", or "sse" where the client means SSE
	claude bool   // ~/.claude.json: local scope under projects[dir] and the disabled lists too
	gemini bool   // Gemini settings: apply its excluded/allowed lists
}

// knownLocations lists every client path in the order of the client table,
// user scope before project scope, each path once (the first claim wins, so
// ~/.cursor/mcp.json stays "cursor (user)" when the project walk reaches home).
func knownLocations(h host) []location {
	dirs := projectDirs(h.cwd)
	groups := [][]location{
		claudeCodeLocations(h, dirs),
		{mcpServers("claude-desktop", filepath.Join(h.appData(), "Claude", "claude_desktop_config.json"))},
		cursorLocations(h, dirs),
		vscodeLocations(h, dirs),
		clineLocations(h),
		copilotLocations(h),
		codexLocations(h, dirs),
		geminiLocations(h, dirs),
		{mcpServers("windsurf", h.inHome(".codeium", "windsurf", "mcp_config.json"))},
		zedLocations(h, dirs),
	}
	var out []location
	seen := map[string]bool{}
	for _, group := range groups {
		for _, loc := range group {
			if loc.path == "" || !filepath.IsAbs(loc.path) || seen[loc.path] {
				continue
			}
			seen[loc.path] = true
			out = append(out, loc)
		}
	}
	return out
}

func mcpServers(source, path string) location {
	return location{source: source, path: cleanOrEmpty(path), key: "mcpServers", remote: "http"}
}

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

// inDirs builds one location per project directory.
func inDirs(dirs []string, build func(dir string) location) []location {
	out := make([]location, 0, len(dirs))
	for _, dir := range dirs {
		out = append(out, build(dir))
	}
	return out
}

func claudeCodeLocations(h host, dirs []string) []location {
	user := mcpServers("claude-code (user)", filepath.Join(h.envDir("CLAUDE_CONFIG_DIR", h.home), ".claude.json"))
	user.claude = true
	out := []location{user}
	out = append(out, inDirs(dirs, func(d string) location {
		return mcpServers("claude-code (project)", filepath.Join(d, ".mcp.json"))
	})...)
	managed := h.system("etc", "claude-code", "managed-mcp.json")
	if h.goos == "darwin" {
		managed = h.system("Library", "Application Support", "ClaudeCode", "managed-mcp.json")
	}
	return append(out, mcpServers("claude-code (managed)", managed))
}

func cursorLocations(h host, dirs []string) []location {
	out := []location{mcpServers("cursor (user)", h.inHome(".cursor", "mcp.json"))}
	return append(out, inDirs(dirs, func(d string) location {
		return mcpServers("cursor (project)", filepath.Join(d, ".cursor", "mcp.json"))
	})...)
}

// vscodeUserDirs are the User directories of VS Code and VS Code Insiders.
func vscodeUserDirs(h host) []string {
	return []string{
		filepath.Join(h.appData(), "Code", "User"),
		filepath.Join(h.appData(), "Code - Insiders", "User"),
	}
}

func vscodeLocations(h host, dirs []string) []location {
	withKey := func(source, path, key string) location {
		loc := mcpServers(source, path)
		loc.key = key
		return loc
	}
	out := inDirs(dirs, func(d string) location {
		return withKey("vscode (workspace)", filepath.Join(d, ".vscode", "mcp.json"), "servers")
	})
	for _, user := range vscodeUserDirs(h) {
		out = append(out, withKey("vscode (user)", filepath.Join(user, "mcp.json"), "servers"))
		profiles, _ := filepath.Glob(filepath.Join(user, "profiles", "*", "mcp.json"))
		for _, p := range profiles {
			out = append(out, withKey("vscode (user)", p, "servers"))
		}
	}
	for _, user := range vscodeUserDirs(h) {
		out = append(out, withKey("vscode (settings.json)", filepath.Join(user, "settings.json"), "mcp.servers"))
	}
	return append(out, inDirs(dirs, func(d string) location {
		return withKey("vscode (settings.json)", filepath.Join(d, ".vscode", "settings.json"), "mcp.servers")
	})...)
}

// clineLocations: Cline is a VS Code extension, so its settings live in the
// globalStorage of whichever editor hosts it.
func clineLocations(h host) []location {
	var out []location
	for _, editor := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
		path := filepath.Join(h.appData(), editor, "User", "globalStorage",
			"saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		loc := mcpServers("cline", path)
		loc.remote = "sse" // Cline reads a bare url as SSE
		out = append(out, loc)
	}
	return out
}

func copilotLocations(h host) []location {
	out := []location{mcpServers("copilot-cli", filepath.Join(h.envDir("COPILOT_HOME", h.inHome(".copilot")), "mcp-config.json"))}
	if xdg := h.getenv("XDG_CONFIG_HOME"); xdg != "" { // honoured by versions before 1.0
		out = append(out, mcpServers("copilot-cli", filepath.Join(absOrEmpty(xdg), ".copilot", "mcp-config.json")))
	}
	return out
}

func codexLocations(h host, dirs []string) []location {
	codex := func(source, path string) location {
		return location{source: source, path: cleanOrEmpty(path), key: "mcp_servers", toml: true, remote: "http"}
	}
	out := []location{codex("codex (user)", filepath.Join(h.envDir("CODEX_HOME", h.inHome(".codex")), "config.toml"))}
	return append(out, inDirs(dirs, func(d string) location {
		return codex("codex (project)", filepath.Join(d, ".codex", "config.toml"))
	})...)
}

func geminiLocations(h host, dirs []string) []location {
	gemini := func(source, path string) location {
		loc := mcpServers(source, path)
		loc.remote, loc.gemini = "sse", true // Gemini: url is SSE, httpUrl is streamable HTTP
		return loc
	}
	out := []location{gemini("gemini (user)", h.inHome(".gemini", "settings.json"))}
	out = append(out, inDirs(dirs, func(d string) location {
		return gemini("gemini (project)", filepath.Join(d, ".gemini", "settings.json"))
	})...)
	system := h.system("etc", "gemini-cli", "settings.json")
	if h.goos == "darwin" {
		system = h.system("Library", "Application Support", "GeminiCli", "settings.json")
	}
	return append(out, gemini("gemini (system)", h.envDir("GEMINI_CLI_SYSTEM_SETTINGS_PATH", system)))
}

func zedLocations(h host, dirs []string) []location {
	zed := func(source, path string) location {
		loc := mcpServers(source, path)
		loc.key = "context_servers"
		return loc
	}
	out := []location{zed("zed (user)", filepath.Join(h.configHome(), "zed", "settings.json"))}
	return append(out, inDirs(dirs, func(d string) location {
		return zed("zed (project)", filepath.Join(d, ".zed", "settings.json"))
	})...)
}
