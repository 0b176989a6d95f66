// Command run-mcp-demo is run-mcp's bundled demo MCP server
// (internal/demoserver): something for newcomers to point run-mcp at, and a
// target for run-mcp's own tests. `run-mcp demo-server [flags]` runs it.
//
// It is a binary of its own, shipped beside run-mcp in every archive and
// package, because it is built on mcp-go's server package, whose JSON
// Schema library compiles its metaschemas in a package init: linked into
// run-mcp, that init cost every run-mcp process 6 to 13 ms, for a server
// most runs never start.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/internal/demoserver"
)

// Exit codes, as run-mcp's: a bad flag is a usage error.
const (
	exitFailure = 1
	exitUsage   = 64
)

// usageError is a command line the demo server cannot take.
type usageError struct{ error }

func main() {
	cmd := demoserver.NewCommand()
	// Its help names the binary it is in; run-mcp's demo-server subcommand
	// passes every word through, --help included.
	cmd.Use = "run-mcp-demo"
	cmd.SilenceErrors = true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageError{fmt.Errorf("it takes flags only, not %q", args[0])}
		}
		return nil
	}
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "run-mcp demo-server: %v\n", err)
		var usage usageError
		if errors.As(err, &usage) {
			fmt.Fprintln(os.Stderr, "run-mcp demo-server --help lists its flags.")
			os.Exit(exitUsage)
		}
		os.Exit(exitFailure)
	}
}
