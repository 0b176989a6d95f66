package demoserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools that come and go: add_tool at run time, and the extras of the tools
// file at start.

const defaultExtraDescription = "An extra tool from the tools file."

// toolNamePattern is the MCP tool-name rule (SEP-986): 1 to 128 of
// letters, digits, '_', '-' and '.'.
const toolNamePattern = `^[A-Za-z0-9_.-]{1,128}$`

func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// extraTool is an echo-like tool with the given name and description.
func (d *demo) extraTool(name, description string) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool(name,
			annotated(pure),
			mcp.WithDescription(description),
			mcp.WithString("message", mcp.Required(), mcp.Description("Text to echo back.")),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			message, err := req.RequireString("message")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(name + ": " + message), nil
		},
	}
}

func (d *demo) addToolTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("add_tool",
			annotated(hints{idempotent: true}), // a second call with the name adds nothing
			mcp.WithDescription("Adds an echo-like tool with the given name at run time and announces the new list."),
			mcp.WithString("name", mcp.Required(), mcp.Pattern(toolNamePattern), mcp.Description("Name of the new tool.")),
		),
		Handler: d.handleAddTool,
	}
}

func (d *demo) handleAddTool(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := req.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if !validToolName(name) {
		return mcp.NewToolResultErrorf("%q is not a valid tool name (want %s)", name, toolNamePattern), nil
	}
	if d.srv.GetTool(name) != nil {
		return mcp.NewToolResultErrorf("a tool named %q already exists", name), nil
	}
	// AddTool itself sends notifications/tools/list_changed to the session,
	// because the server declares tools.listChanged.
	d.srv.AddTools(d.extraTool(name, "An echo-like tool added at run time by add_tool."))
	return mcp.NewToolResultText("added " + name), nil
}
