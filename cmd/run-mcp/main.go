// Command run-mcp is the harness a coding agent uses to run, call, restart
// and diagnose the MCP server it is writing.
package main

import (
	"os"

	"github.com/run-mcp/run-mcp/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0"

func main() {
	os.Exit(cli.Execute(cli.NewRoot(version, nil)))
}
