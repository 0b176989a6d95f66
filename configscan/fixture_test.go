package configscan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// machine is a fake computer in a temp dir: a home, a repo with a cwd two
// levels below its root, and a system root for /etc.
type machine struct {
	root, home, proj, cwd, sys string
	env                        map[string]string
}

func newMachine(t *testing.T) *machine {
	t.Helper()
	root := t.TempDir()
	m := &machine{
		root: root,
		home: filepath.Join(root, "home", "ada"),
		sys:  filepath.Join(root, "sys"),
		env:  map[string]string{},
	}
	m.proj = filepath.Join(m.home, "work", "proj")
	m.cwd = filepath.Join(m.proj, "pkg", "api")
	mkdir(t, m.cwd)
	mkdir(t, filepath.Join(m.proj, ".git"))
	return m
}

func (m *machine) options() Options {
	return Options{
		Home: m.home, Cwd: m.cwd, GOOS: "linux", SystemRoot: m.sys,
		Env: func(k string) string { return m.env[k] },
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(strings.TrimLeft(content, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeEveryClient writes one realistic config per client. Every env and
// header value contains "s3cr3t" so a test can prove none leaks.
func (m *machine) writeEveryClient(t *testing.T) {
	t.Helper()
	m.writeClaudeCode(t)
	m.writeEditors(t)
	m.writeCLIs(t)
	m.writeZed(t)
}

func (m *machine) writeClaudeCode(t *testing.T) {
	write(t, filepath.Join(m.home, ".claude.json"), `
{
  "numStartups": 12,
  "mcpServers": {
    "cc-user": {"type": "stdio", "command": "npx", "args": ["-y", "@acme/user-server"], "env": {"CC_USER_TOKEN": "s3cr3t-cc-user-env"}},
    "cc-remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer s3cr3t-cc-header"}}
  },
  "projects": {
    "`+m.proj+`": {
      "allowedTools": [],
      "mcpServers": {"cc-local": {"type": "stdio", "command": "go", "args": ["run", "./cmd/server"], "env": {"DB_PASSWORD": "s3cr3t-cc-local"}}},
      "disabledMcpServers": ["cc-remote"],
      "disabledMcpjsonServers": ["cc-proj-off"]
    },
    "/somewhere/else": {"mcpServers": {"elsewhere": {"command": "nope"}}}
  }
}`)
	write(t, filepath.Join(m.proj, ".mcp.json"), `
{
  "mcpServers": {
    "my-server": {"command": "node", "args": ["build/index.js"], "env": {"API_KEY": "${API_KEY:-s3cr3t-default}"}},
    "cc-proj-off": {"command": "python3", "args": ["-m", "tools_server"]},
    "no-launch": {"args": ["--verbose"]}
  }
}`)
	write(t, filepath.Join(m.sys, "etc", "claude-code", "managed-mcp.json"), `
{"mcpServers": {"corp-tools": {"type": "sse", "url": "https://corp.example/sse"}}}`)
	write(t, filepath.Join(m.home, ".config", "Claude", "claude_desktop_config.json"), `
{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/Desktop"]},
    "array-command": {"command": ["node", "x.js"]}
  }
}`)
}

func (m *machine) writeEditors(t *testing.T) {
	write(t, filepath.Join(m.home, ".cursor", "mcp.json"), `
{
  "mcpServers": {
    // remote, with an API key header
    "cursor-remote": {"url": "https://cursor.example/mcp", "headers": {"X-Api-Key": "s3cr3t-cursor-header"}},
  },
}`)
	write(t, filepath.Join(m.proj, ".cursor", "mcp.json"), `
{"mcpServers": {"cursor-proj": {"command": "uvx", "args": ["mcp-server-git", "--repository", "."]}}}`)
	write(t, filepath.Join(m.proj, ".vscode", "mcp.json"), `
{
  // Servers for this repo
  "inputs": [{"type": "promptString", "id": "gh-token", "password": true}],
  "servers": {
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${input:gh-token} s3cr3t-vs-header"}},
    "vs-local": {
      "type": "stdio",
      "command": "node",
      "args": ["server.js"],
      "cwd": "${workspaceFolder}",
      "env": {"VS_SECRET": "s3cr3t-vscode-env"}, /* envFile is a path, not a value */
      "envFile": "${workspaceFolder}/.env",
    },
  },
}`)
	write(t, filepath.Join(m.home, ".config", "Code", "User", "mcp.json"), `
{"servers": {"vs-user": {"command": "docker", "args": ["run", "-i", "--rm", "mcp/fetch"]}}}`)
	write(t, filepath.Join(m.home, ".config", "Code - Insiders", "User", "settings.json"), `
{
  "editor.fontSize": 14,
  // the pre-1.102 place for servers
  "mcp": {"servers": {"legacy": {"command": "legacy-mcp", "env": {"LEGACY": "s3cr3t-legacy"}}}},
}`)
	write(t, filepath.Join(m.home, ".config", "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), `
{
  "mcpServers": {
    "cline-off": {"command": "node", "args": ["/opt/weather/index.js"], "disabled": true, "autoApprove": []},
    "cline-sse": {"url": "http://localhost:3000/sse", "timeout": 60},
    "cline-stream": {"type": "streamableHttp", "url": "http://localhost:3001/mcp"}
  }
}`)
	write(t, filepath.Join(m.home, ".codeium", "windsurf", "mcp_config.json"), `
{
  "mcpServers": {
    "ws-remote": {"serverUrl": "https://ws.example/mcp", "headers": {"Authorization": "s3cr3t-ws"}},
    "ws-off": {"command": "npx", "args": ["ws-mcp"], "disabled": true}
  }
}`)
}

func (m *machine) writeCLIs(t *testing.T) {
	m.env["COPILOT_HOME"] = filepath.Join(m.root, "copilot-home")
	write(t, filepath.Join(m.root, "copilot-home", "mcp-config.json"), `
{"mcpServers": {"copilot-local": {"type": "local", "command": "npx", "args": ["-y", "@playwright/mcp@latest"], "tools": ["*"], "env": {"PW": "s3cr3t-copilot"}}}}`)
	write(t, filepath.Join(m.home, ".copilot", "mcp-config.json"), `
{"mcpServers": {"shadowed": {"command": "not-read-when-COPILOT_HOME-is-set"}}}`)
	write(t, filepath.Join(m.home, ".codex", "config.toml"), `
model = "o4-mini"

# docs server
[mcp_servers.codex-docs]
command = "npx"
args = ["-y", "mcp-docs"]
env = { DOCS_TOKEN = "s3cr3t-codex-env" }
env_vars = ["PATH_EXTRA", "HOME_TOKEN"]
cwd = "/srv/docs"
startup_timeout_sec = 20

[mcp_servers.codex-off]
command = "codex-off-server"
enabled = false

[mcp_servers.codex-remote]
url = "https://codex.example/mcp"
bearer_token_env_var = "CODEX_REMOTE_TOKEN"
http_headers = { "X-Team" = "s3cr3t-codex-header" }
env_http_headers = { "X-Auth" = "AUTH_ENV" }
`)
	write(t, filepath.Join(m.proj, ".codex", "config.toml"), `
[mcp_servers.codex-proj]
command = "cargo"
args = ["run", "--bin", "mcp"]
`)
	write(t, filepath.Join(m.home, ".gemini", "settings.json"), `
{
  "theme": "GitHub",
  "mcpServers": {
    "gem-sse": {"url": "http://localhost:8080/sse"},
    "gem-http": {"httpUrl": "https://gem.example/mcp", "headers": {"Authorization": "s3cr3t-gem"}},
    "gem-excluded": {"command": "python", "args": ["srv.py"], "cwd": "./srv", "trust": true}
  },
  "mcp": {"excluded": ["gem-excluded"]}
}`)
	write(t, filepath.Join(m.proj, ".gemini", "settings.json"), `
{"mcpServers": {"gem-proj": {"command": "bun", "args": ["x.ts"], "timeout": 30000}}}`)
	write(t, filepath.Join(m.sys, "etc", "gemini-cli", "settings.json"), `
{
  "mcpServers": {
    "sys": {"command": "a" "env": {"K": "s3cr3t-after-the-error"}}
  }
}`)
}

func (m *machine) writeZed(t *testing.T) {
	write(t, filepath.Join(m.home, ".config", "zed", "settings.json"), `
// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "zed-new": {"command": "zed-mcp", "args": ["--stdio"], "env": {"ZED_KEY": "s3cr3t-zed"}},
    "zed-old": {"source": "custom", "command": {"path": "old-mcp", "args": ["a"], "env": {"OLD_KEY": "s3cr3t-zed-old"}}},
    "zed-remote": {"url": "https://zed.example/mcp", "headers": {"Authorization": "s3cr3t-zed-h"}},
    "zed-off": {"command": "zed-off", "enabled": false},
    "zed-ext": {"source": "extension", "settings": {}},
  },
}`)
	write(t, filepath.Join(m.proj, ".zed", "settings.json"), `
{"context_servers": {"zed-proj": {"command": "./bin/srv"}}}`)
}

// byKey indexes entries by "source|name".
func byKey(entries []Entry) map[string]Entry {
	out := map[string]Entry{}
	for _, e := range entries {
		out[e.Source+"|"+e.Name] = e
	}
	return out
}
