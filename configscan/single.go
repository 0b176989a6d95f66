package configscan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// readOne reads the one file the caller named, guessing its shape. Unlike a
// known location, a missing file here is an error: it was asked for.
func (c *collector) readOne(h host, name string) {
	path := resolvePath(h, name)
	c.look(path)
	isTOML := strings.EqualFold(filepath.Ext(path), ".toml")
	doc, exists, err := load(path, isTOML)
	if !exists {
		c.fail(path, "file", errors.New("no such file; check the path (a relative one is taken from the working directory)"))
		return
	}
	if err != nil && !isTOML {
		doc, err = retryAsTOML(path, err)
	}
	if err != nil {
		c.fail(path, "file", err)
		return
	}
	c.readShapes(doc, path)
}

// resolvePath expands ~/ and makes a relative path absolute against the cwd.
func resolvePath(h host, name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok && h.home != "" {
		name = filepath.Join(h.home, rest)
	}
	if !filepath.IsAbs(name) && h.cwd != "" {
		name = filepath.Join(h.cwd, name)
	}
	return filepath.Clean(name)
}

// retryAsTOML gives a file that is not JSON a second chance as Codex TOML
// with an mcp_servers table; otherwise the JSON error stands.
func retryAsTOML(path string, jsonErr error) (map[string]any, error) {
	doc, _, err := load(path, true)
	if err != nil || doc["mcp_servers"] == nil {
		return nil, jsonErr
	}
	return doc, nil
}

// fileShapes are the server tables a config file may hold, by client.
func fileShapes() []string {
	return []string{"mcpServers", "servers", "mcp.servers", "context_servers", "mcp_servers"}
}

// readShapes adds every server table the document holds; none at all is
// reported, since the caller expected servers in this file.
func (c *collector) readShapes(doc map[string]any, path string) {
	remote := guessRemote(path)
	seen := false
	for _, key := range fileShapes() {
		servers, found, err := table(doc, strings.Split(key, "."))
		if err != nil {
			c.fail(path, "file", err)
		}
		seen = seen || found
		if found && err == nil {
			c.entries = append(c.entries, serverEntries(servers, "file", path, remote)...)
		}
	}
	if !seen {
		c.fail(path, "file", fmt.Errorf("found no server table (looked for %s); is this an MCP client config?",
			strings.Join(fileShapes(), ", ")))
	}
}

// guessRemote: Gemini and Cline read a bare "url" as SSE, everyone else as
// streamable HTTP.
func guessRemote(path string) string {
	p := strings.ToLower(filepath.ToSlash(path))
	if strings.Contains(p, "/.gemini/") || strings.Contains(p, "gemini-cli") || strings.Contains(p, "cline") {
		return "sse"
	}
	return "http"
}
