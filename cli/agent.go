package cli

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/internal/spinread"
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
	cpus := oneP()
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
		MaxConnections: opts.MaxConnections, CPUs: cpus, IdleTimeout: time.Duration(opts.IdleMinutes * float64(time.Minute)),
		Version: opts.Version}, in, os.Stdout, os.Stderr)
}

// oneP holds the agent server's Go code to one P where its reads try
// (Linux), unless GOMAXPROCS in the environment says otherwise, and returns
// how many CPUs the runtime had before (its default counts the CPU quota of
// a container too).
//
// The agent server relays: per message it does a few microseconds of work,
// and its targets and host do the rest. On one P, the reader a message is
// due on (a call's answer, the host's next call) hands the wait to the next
// one without waking an idle runtime thread, which is what lets it try the
// pipe instead of sleeping (internal/spinread): make bench's sequential
// call_mcp_primitive went from 1.71-2.58x of a direct call to 1.24-1.51x
// (16 runs).
// The rows with many calls in flight stay within their goals on one P:
// 0.62-0.68x of the direct connection's throughput at 128 in flight
// (0.68-0.70x on two Ps), and 0.97-1.13x in the 200-connection burst.
func oneP() int {
	cpus := runtime.GOMAXPROCS(0)
	if spinread.Tries && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	return cpus
}
