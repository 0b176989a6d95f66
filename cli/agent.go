package cli

import (
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/mcpfront"
)

// serveAgent runs the agent MCP server on the process's stdio. SIGINT, SIGTERM
// and SIGHUP stop every target and exit 0, as a closed stdin does.
func serveAgent(cmd *cobra.Command, opts AgentOptions) error {
	in := pollableStdin(os.Stdin)
	ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
	defer stop()
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		// A person typed run-mcp at a terminal: say what is waiting for them.
		fmt.Fprintln(os.Stderr, "run-mcp: this is an MCP server on stdio, waiting for an agent to speak JSON-RPC. "+
			"Register it with your agent (see the README), or try `run-mcp --help` for the shell commands. Ctrl-C to quit.")
	}
	return mcpfront.Serve(ctx, mcpfront.Options{OutDir: opts.OutDir, Timeout: time.Duration(opts.TimeoutMS) * time.Millisecond,
		RequestTimeout: time.Duration(opts.RequestMS) * time.Millisecond,
		MaxText:        opts.MaxText, MediaKB: opts.MediaKB, Scan: opts.Scan, Protocol: opts.Protocol,
		MaxConnections: opts.MaxConnections, IdleTimeout: time.Duration(opts.IdleMinutes * float64(time.Minute)),
		Version: opts.Version}, in, os.Stdout, os.Stderr)
}
