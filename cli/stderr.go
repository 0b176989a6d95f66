package cli

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/wire"
)

// startupSettle is how long a fresh server's stderr must stay quiet before
// its start-up output is taken as complete (bounded by startupMax).
const (
	startupSettle = 300 * time.Millisecond
	startupMax    = 3 * time.Second
)

// newStderrCmd builds `stderr [count]`: what a fresh spawn writes to stderr
// at start-up, as a JSON array of lines (the last count with a count). A
// server that fails to start still has its stderr printed, and exits 69.
// With --session it is the running server's stderr since it started: the
// first 100 and the last 1,000 lines, a marker line naming the gap.
func newStderrCmd(g *globals, version string) *cobra.Command {
	cmd := &cobra.Command{Use: "stderr [options] [count] [-- target_command...]",
		Short:              "Print what a fresh spawn of the server writes to stderr at start-up, as a JSON array",
		Example:            "  run-mcp stderr -- node my-server.js\n  run-mcp stderr 20 -- node my-server.js",
		DisableFlagParsing: true}
	g.addTarget(cmd, "Print each line as {seq, time, text}, with the total the server wrote and how many lines the first-100/last-1,000 window left out, and where")
	cmd.RunE = withRawFailures(g, func(cmd *cobra.Command, raw []string, io streams) error {
		sp, err := prepare(cmd, g, raw, layout{optional: 1})
		if err != nil || sp == nil {
			return err
		}
		count := 0
		if len(sp.positionals) > 0 {
			if count, err = strconv.Atoi(sp.positionals[0]); err != nil || count <= 0 {
				return exitf(ExitUsage, "count must be a positive number of lines, got %q; leave it out for all of them (the first 100 and the last 1,000)", sp.positionals[0])
			}
		}
		if g.session != "" {
			req := g.request(session.OpStderr, sp)
			req.Count = count
			return withTarget(cmd, g, version, io, sp, req, func(ctx context.Context, c *actors.Conn, _ actors.Info) error {
				return printStderr(ctx, io, c, count, g.raw)
			})
		}
		cfg, err := g.config(sp.target)
		if err != nil {
			return err
		}
		return startupStderr(cmd.Context(), io, cfg, version, count, g.raw)
	})
	return cmd
}

func startupStderr(ctx context.Context, io streams, cfg actors.Config, version string, count int, raw bool) error {
	ctx, stop := notifyNow(ctx)
	defer stop()
	reg := actors.NewRegistry(actors.Options{MaxConnections: 1, ClientInfo: mcp.Implementation{Name: "run-mcp", Version: version}})
	defer reg.Close()
	start := time.Now()
	io.status("%s", connectingLine(cfg))
	info, connErr := reg.Connect(ctx, "", cfg)
	connErr = withStartHints(connErr, cfg)
	if connErr == nil {
		io.status("%s", connectedLine(info, time.Since(start)))
	}
	c, err := reg.Resolve("", false)
	if err != nil {
		return interrupted(ctx, connectFailure(connErr))
	}
	ex, ok, err := c.Stderr(ctx, 0, 0)
	if err != nil || !ok {
		if connErr != nil {
			return interrupted(ctx, connectFailure(connErr))
		}
		return exitf(ExitUsage, "%s", httpLimits)
	}
	settle(ctx, c)
	if ex, _, err = c.Stderr(ctx, 0, count); err != nil {
		return failed(err)
	}
	if connErr != nil && raw {
		// One JSON value on stdout: the envelope, whose stderr is what
		// this command would have printed.
		f := &failure{err: interrupted(ctx, connectFailure(connErr)), stderr: ex.Render(false)}
		var ce *actors.ConnectError
		if errors.As(connErr, &ce) {
			f.exit = ce.Report.Exit
		}
		return f
	}
	if err := printExcerpt(io, ex, raw); err != nil {
		return err
	}
	if connErr != nil {
		return interrupted(ctx, connectFailure(connErr))
	}
	return nil
}

// settle waits until no line has arrived for startupSettle, at most
// startupMax: what a server writes at start-up comes in bursts.
func settle(ctx context.Context, c *actors.Conn) {
	deadline := time.Now().Add(startupMax)
	last := -1
	for time.Now().Before(deadline) {
		ex, _, err := c.Stderr(ctx, 0, 1)
		if err != nil || ex.Total == last {
			return
		}
		last = ex.Total
		select {
		case <-time.After(startupSettle):
		case <-ctx.Done():
			return
		}
	}
}

// printStderr prints a session's stderr as a JSON array: what its current
// server process wrote since it started (the first 100 and the last 1,000
// lines of it), or its last count lines. A server started again by a
// reconnect is a new process: what the one before it wrote is not its.
func printStderr(ctx context.Context, io streams, c *actors.Conn, count int, raw bool) error {
	ex, ok, err := processStderr(ctx, c, count)
	if err != nil {
		return failed(err)
	}
	if !ok {
		return exitf(ExitUsage, "%s", httpLimits)
	}
	return printExcerpt(io, ex, raw)
}

// processStderr is what the connection's newest process wrote (the ring
// holds every life of the connection, and positions run on across them):
// its lines from where it began, or its last count lines. ok is false for
// a connection without a process (HTTP).
func processStderr(ctx context.Context, c *actors.Conn, count int) (ex wire.Excerpt, ok bool, err error) {
	start, err := c.StderrStart(ctx)
	if err != nil {
		return wire.Excerpt{}, false, err
	}
	if ex, ok, err = c.Stderr(ctx, start, 0); err != nil || !ok {
		return wire.Excerpt{}, ok, err
	}
	if count > 0 && len(ex.Lines) > count {
		ex.Lines = ex.Lines[len(ex.Lines)-count:]
		if ex.Elided > 0 && ex.Lines[0].Seq > ex.ElidedBefore {
			ex.Elided = 0 // the gap is before the lines shown
		}
	}
	return ex, true, nil
}

// printExcerpt prints stderr lines as a JSON array of strings; --raw
// prints the excerpt itself: each line with its position (seq, the cursor
// get_mcp_server_stderr's since takes) and time, the total written, and
// how many lines the first-100/last-1,000 window dropped and where.
func printExcerpt(io streams, ex wire.Excerpt, raw bool) error {
	if !raw {
		return io.printJSON(orEmpty(ex.Render(false)))
	}
	return io.printJSON(map[string]any{"lines": orEmpty(ex.Lines), "total": ex.Total, "elided": ex.Elided, "elided_before": ex.ElidedBefore})
}
