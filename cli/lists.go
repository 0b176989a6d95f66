package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
)

// newListCmds builds list-tools, list-resources and list-prompts.
func newListCmds(g *globals, version string) []*cobra.Command {
	return []*cobra.Command{
		newHeadlessCmd(g, version, headless{use: "list-tools [options] [-- target_command...]", short: "List the tools of a server as JSON",
			example: "  run-mcp list-tools -- node my-server.js\n  run-mcp list-tools -- http://localhost:3000/mcp", run: listOf("tools")}),
		newHeadlessCmd(g, version, headless{use: "list-resources [options] [-- target_command...]", short: "List the resources and resource templates of a server as JSON",
			example: "  run-mcp list-resources -- node my-server.js", run: listOf("resources", "resource_templates")}),
		newHeadlessCmd(g, version, headless{use: "list-prompts [options] [-- target_command...]", short: "List the prompts of a server as JSON",
			example: "  run-mcp list-prompts -- node my-server.js", run: listOf("prompts")}),
	}
}

// offers says whether the server declared the capability a kind needs.
func offers(info actors.Info, kind string) bool {
	switch kind {
	case "tools":
		return info.Capabilities.Tools != nil
	case "prompts":
		return info.Capabilities.Prompts != nil
	}
	return info.Capabilities.Resources != nil
}

func jsonKey(kind string) string {
	if kind == "resource_templates" {
		return "resourceTemplates"
	}
	return kind
}

// listOf lists the given kinds once connected, one-shot or in a session.
func listOf(kinds ...string) op {
	return func(ctx context.Context, x *job, c *actors.Conn) error {
		out := map[string]any{}
		for _, kind := range kinds {
			if !offers(x.info, kind) {
				continue
			}
			items, err := c.List(ctx, kind)
			if err != nil {
				return x.g.failed(err)
			}
			out[jsonKey(kind)] = items // each entry as the server sent it
		}
		if len(out) == 0 {
			x.io.status("Note: the server does not declare the %s capability", kinds[0])
			out[jsonKey(kinds[0])] = []any{}
		}
		return x.io.printJSON(out)
	}
}
