package configscan

import (
	"fmt"
	"strings"
)

// claudeOff holds the names Claude Code has switched off with /mcp, kept
// per project in ~/.claude.json.
type claudeOff struct {
	servers map[string]bool // disabledMcpServers: user and local scope
	mcpjson map[string]bool // disabledMcpjsonServers: .mcp.json (project scope)
}

const claudeLocalPrefix = "claude-code (local: "

// readClaudeUser reads ~/.claude.json: user scope at the top level, and for
// the cwd and each ancestor, the local scope under projects["<dir>"] that
// `claude mcp add` writes by default, with that project's disabled lists.
func (c *collector) readClaudeUser(doc map[string]any, loc location, h host) {
	if servers, found, err := table(doc, []string{"mcpServers"}); err != nil {
		c.fail(loc.path, loc.source, err)
	} else if found {
		c.entries = append(c.entries, serverEntries(servers, loc.source, loc.path, loc.remote)...)
	}
	projects, _ := doc["projects"].(map[string]any)
	for _, dir := range claudeProjectKeys(h.cwd) {
		project, ok := projects[dir].(map[string]any)
		if !ok {
			continue
		}
		source := claudeLocalPrefix + dir + ")"
		servers, found, err := table(project, []string{"mcpServers"})
		if err != nil {
			c.fail(loc.path, source, fmt.Errorf("in projects[%q]: %w", dir, err))
		} else if found {
			c.entries = append(c.entries, serverEntries(servers, source, loc.path, loc.remote)...)
		}
		c.claude.collect(project)
	}
}

func (off *claudeOff) collect(project map[string]any) {
	off.servers = addNames(off.servers, project["disabledMcpServers"])
	off.mcpjson = addNames(off.mcpjson, project["disabledMcpjsonServers"])
}

func addNames(set map[string]bool, list any) map[string]bool {
	items, _ := list.([]any)
	for _, item := range items {
		if name, ok := item.(string); ok {
			if set == nil {
				set = map[string]bool{}
			}
			set[name] = true
		}
	}
	return set
}

// apply marks the Claude Code entries whose names are on a disabled list.
func (off claudeOff) apply(entries []Entry) {
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Source == "claude-code (user)" || strings.HasPrefix(e.Source, claudeLocalPrefix):
			e.Disabled = e.Disabled || off.servers[e.Name]
		case e.Source == "claude-code (project)":
			e.Disabled = e.Disabled || off.mcpjson[e.Name] || off.servers[e.Name]
		}
	}
}
