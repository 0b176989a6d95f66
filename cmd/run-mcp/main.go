// Command run-mcp is the harness a coding agent uses to run, call, restart
// and diagnose the MCP server it is writing.
package main

import (
	"os"
	"runtime/debug"

	"github.com/run-mcp/run-mcp/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0"

// softMemoryLimit makes the collector work harder as the heap nears it, so a
// large result passing through costs a small multiple of its size in peak
// memory rather than whatever GOGC's doubling allows. It is soft: a bigger
// message still succeeds, just with more collection.
const softMemoryLimit = 48 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" { // a limit the user set wins
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(cli.Execute(cli.NewRoot(version, nil)))
}
