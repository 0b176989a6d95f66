package demoserver

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// NewCommand returns the `demo-server` subcommand, which serves the demo on
// the process's own stdin and stdout.
func NewCommand() *cobra.Command {
	var (
		opts        Options
		exitAfterMs int
	)
	cmd := &cobra.Command{
		Use:   "demo-server",
		Short: "A bundled MCP server on stdio for trying run-mcp and for its tests",
		Long: "demo-server is a small MCP server that speaks on stdin/stdout, in both protocol eras.\n" +
			"Point run-mcp at it to try things out; its flags make it misbehave on purpose for tests.",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ExitAfter = time.Duration(exitAfterMs) * time.Millisecond
			// SIGTERM is how a harness stops a server that outlives its stdin.
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			return Serve(ctx, opts, os.Stdin, os.Stdout, os.Stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.CrashAtStart, "crash-at-start", "", "write `REASON` as a fatal error to stderr and exit 1 before reading anything")
	f.StringVar(&opts.StdoutNoise, "stdout-noise", "", "print `LINE` to stdout once before serving, like a stray console.log")
	f.BoolVar(&opts.SilentHandshake, "silent-handshake", false, "read stdin but never answer anything")
	f.IntVar(&opts.StderrFlood, "stderr-flood", 0, "write `N` numbered lines to stderr at start, as fast as possible")
	f.BoolVar(&opts.IgnoreStdinEOF, "ignore-stdin-eof", false, "keep running after stdin closes, until SIGTERM")
	f.StringVar(&opts.ToolsFile, "tools-file", "", "read extra tools from `PATH` at start: each line 'name' or 'name: description' adds one, '-name' hides a built-in")
	f.StringVar(&opts.HTTP, "http", "", "serve Streamable HTTP on `ADDR` (e.g. 127.0.0.1:0) at /mcp instead of stdio; the bound URL goes to stderr")
	f.IntVar(&exitAfterMs, "exit-after-ms", 0, "exit 0 by itself `N` milliseconds after start")
	return cmd
}
