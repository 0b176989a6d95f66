// Command run-mcp is the harness a coding agent uses to run, call, restart
// and diagnose the MCP server it is writing.
package main

import (
	"fmt"
	"os"

	"github.com/run-mcp/run-mcp/cli"
	"github.com/run-mcp/run-mcp/internal/supervise"
)

func main() {
	// run-mcp's helpers (the supervisor of its servers, and the exec
	// trampoline) are this binary too: first thing, before any of its own
	// work.
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	if msg := openFilesTooFew(); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(cli.ExitUnavail)
	}
	id := current()
	// The version alone is what the agent server reports as serverInfo.version
	// and the headless commands as clientInfo.version; --version says more.
	root := cli.NewRootFor(id.Version, nil, os.Args[1:])
	root.SetVersionTemplate(templateLiteral(id.String()) + "\n")
	os.Exit(cli.Execute(root))
}
