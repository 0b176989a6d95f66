// Package configscan finds the MCP servers that the clients on this machine
// already know about, so an agent can launch the one it is working on without
// asking the user to paste a command line.
//
// It owns the knowledge of where each client keeps its server list and in
// which shape: Claude Code (user, local and project scopes, plus the managed
// file), Claude Desktop, Cursor, VS Code (mcp.json and the legacy settings.json
// block), Cline, GitHub Copilot CLI, Codex CLI (TOML), Gemini CLI, Windsurf and
// Zed. JSON files are read as JSONC (comments and trailing commas allowed).
// Discover can also read one named file, or walk up from the working directory
// looking for any stray JSON file with a top-level "mcpServers" object.
//
// Every entry reports its name, source, file, transport type, command, args,
// cwd and url, and the NAMES of its environment variables and headers. The
// VALUES of env and headers are never read into the result, nor quoted in a
// parse error, because they are usually tokens. ${VAR} references are left as
// written, never expanded, for the same reason.
//
// Nothing is skipped silently: a file that exists but cannot be read or parsed
// becomes a FileError with the reason, and an entry that cannot be launched
// carries a Problem. Every path looked at is listed in Result.Searched, so
// "my server isn't listed" always has an answer.
package configscan
