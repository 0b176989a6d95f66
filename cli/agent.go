package cli

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/mcpfront"
)

// serveAgent runs the agent MCP server on the process's stdio. SIGINT and
// SIGTERM stop every target and exit 0, as a closed stdin does.
func serveAgent(cmd *cobra.Command, opts AgentOptions) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpfront.Serve(ctx, mcpfront.Options{OutDir: opts.OutDir, Timeout: time.Duration(opts.TimeoutMS) * time.Millisecond,
		MaxText: opts.MaxText, MediaKB: opts.MediaKB, Scan: opts.Scan, Protocol: opts.Protocol,
		MaxConnections: opts.MaxConnections, IdleTimeout: time.Duration(opts.IdleMinutes * float64(time.Minute)),
		Version: opts.Version}, os.Stdin, os.Stdout, os.Stderr)
}
