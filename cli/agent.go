package cli

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/mcpfront"
	"github.com/run-mcp/run-mcp/wire"
)

// agentMemoryLimit is the agent server's soft memory limit, above the one
// main sets for the shell commands. The agent server is long-lived and can
// hold hundreds of connections with thousands of calls in flight: at 48 MiB
// its collector ran most of the time in the 20,000-call burst of make bench
// (0.66-0.69x of the direct connections' throughput, p99 3.7-3.9 s), at
// 64 MiB it reached 0.74-0.77x and p99 3.0-3.2 s with a peak of 55 MiB,
// while relaying a 20 MB result still peaked at 57-58 MiB (55-59 at 48).
const agentMemoryLimit = 64 << 20

// serveAgent runs the agent MCP server on the process's stdio. SIGINT, SIGTERM
// and SIGHUP stop every target and exit 0, as a closed stdin does.
func serveAgent(cmd *cobra.Command, opts AgentOptions) error {
	if os.Getenv("GOMEMLIMIT") == "" { // a limit the user set wins
		debug.SetMemoryLimit(agentMemoryLimit)
	}
	// A megabyte of pipe both ways: with thousands of calls in flight the
	// host's requests and our answers would otherwise wait on 64 KiB pipes
	// for whichever side is starved of a CPU. In make bench's 20,000-call
	// burst over 200 connections this took run-mcp from 0.66-0.67x of the
	// direct connections' throughput (p99 1.9-2.3x) to 1.12-1.72x (p99
	// 0.9-1.0x).
	wire.GrowPipe(os.Stdin)
	wire.GrowPipe(os.Stdout)
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
