package mcpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/configscan"
)

// available lists the servers registered with the clients on this machine
// (package configscan), so "my server isn't listed" always has an answer:
// unreadable files and unlaunchable entries come with their reasons.
func (f *front) available(_ context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("cannot find the home directory to look for client configs: %w", err)
	}
	cwd, _ := os.Getwd()
	res := configscan.Discover(configscan.Options{Home: home, Cwd: cwd, Filter: getStr(a, "filter"), File: getStr(a, "file"), Scan: f.opts.Scan})
	var b strings.Builder
	fmt.Fprintf(&b, "%d server(s) registered", len(res.Entries))
	if n := len(res.Errors); n > 0 {
		fmt.Fprintf(&b, ", %d config file(s) that could not be read", n)
	}
	if getStr(a, "filter") != "" {
		fmt.Fprintf(&b, " (filter %q)", getStr(a, "filter"))
	}
	b.WriteString(". Connect to one with connect_to_mcp server=<name> (its command, args, cwd and env as its client passes them), or command=<command> args=<args> (pass env for the env_keys it names).\n")
	if len(res.Entries) == 0 && len(res.Errors) == 0 {
		fmt.Fprintf(&b, "Looked in %d place(s); none holds an MCP server list. ", len(res.Searched))
		if !f.opts.Scan {
			b.WriteString("Start run-mcp with --scan to also look for any JSON file with an mcpServers block above the working directory, or pass file to read one config.\n")
		}
	}
	j, err := json.MarshalIndent(map[string]any{"servers": res.Entries, "errors": res.Errors}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the listing: %w", err)
	}
	b.Write(j)
	return textResult(b.String()), nil
}
