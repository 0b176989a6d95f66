package demoserver

import (
	"github.com/mark3labs/mcp-go/server"
)

const (
	serverName    = "run-mcp-demo"
	serverVersion = "1.0.0"
	instructions  = "A demo MCP server bundled with run-mcp. Start with the echo tool; " +
		"ask_name, ask_llm and list_roots ask the client something back; " +
		"crash, noise and stderr misbehave on purpose."
)

// newMCPServer builds the mcp-go server with the whole catalogue: built-in
// tools (minus those the tools file hides, plus those it adds), resources
// and prompts.
func (d *demo) newMCPServer(extras toolsFile) *server.MCPServer {
	hooks := &server.Hooks{}
	d.subs.watch(hooks)
	srv := server.NewMCPServer(serverName, serverVersion,
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithLogging(),
		server.WithHooks(hooks),
		server.WithInstructions(instructions),
	)
	d.srv = srv
	srv.AddTools(extras.apply(d.builtinTools(), d.extraTool)...)
	d.addResources(srv)
	d.addPrompts(srv)
	return srv
}

// builtinTools is the catalogue before the tools file has its say.
func (d *demo) builtinTools() []server.ServerTool {
	return []server.ServerTool{
		echoTool(),
		addTool(),
		d.slowTool(),
		d.askNameTool(),
		d.askLLMTool(),
		d.listRootsTool(),
		d.logTool(),
		d.bumpCounterTool(),
		d.addToolTool(),
		imageTool(),
		audioTool(),
		bigTextTool(),
		failTool(),
		d.crashTool(),
		d.noiseTool(),
		d.stderrTool(),
		envTool(),
	}
}
