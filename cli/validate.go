package cli

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/validate"
)

// newValidateCmd builds `validate [--deep] [--json]`: exit 0 for PASS or
// WARN, 1 for FAIL, 69 when the server never completed the handshake. With
// --session it checks the running instance instead of a fresh spawn.
func newValidateCmd(g *globals, version string) *cobra.Command {
	var deep, asJSON bool
	cmd := &cobra.Command{Use: "validate [options] [-- target_command...]",
		Short: "Spawn a server (or use a session's), check what a strict client would reject, and report",
		Example: "  run-mcp validate -- node my-server.js\n  run-mcp validate --deep -- node my-server.js\n" +
			"  run-mcp validate --json -- node my-server.js | jq .status\n  run-mcp validate --deep --session main",
		DisableFlagParsing: true}
	g.addTarget(cmd, "Print the report as JSON, as --json does")
	cmd.Flags().BoolVar(&deep, "deep", false, "Print every check, not only those that warned or failed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print the report as JSON")
	cmd.RunE = withRawFailures(g, func(cmd *cobra.Command, raw []string, io streams) error {
		sp, err := prepare(cmd, g, raw, layout{})
		if err != nil || sp == nil {
			return err
		}
		if g.session != "" {
			req := g.request(session.OpValidate, sp)
			req.Deep, req.JSON = deep, asJSON
			return withTarget(cmd, g, version, io, sp, req, func(ctx context.Context, c *actors.Conn, info actors.Info) error {
				return printReport(io, validate.Running(ctx, c, info), deep, asJSON || g.raw)
			})
		}
		cfg, err := g.config(sp.target)
		if err != nil {
			return err
		}
		ctx, stop := notifyNow(cmd.Context())
		defer stop()
		// --raw is --json here: the report is what validate has to show.
		report := validate.Run(ctx, cfg, actors.Options{ClientInfo: mcp.Implementation{Name: "run-mcp", Version: version}, Words: cliWords, Host: newShellHost(io.err)})
		err = printReport(io, report, deep, asJSON || g.raw)
		if !report.Connected {
			var msgs []string
			for _, c := range report.Checks {
				msgs = append(msgs, c.Message)
			}
			for _, h := range startHints(cfg, strings.Join(msgs, "\n"), append(msgs, report.Stderr...), report.Stderr) {
				io.status("run-mcp: %s", h)
			}
		}
		if sig, ok := signalOf(ctx); ok {
			e := exitf(signalCode(sig), "interrupted by %s before validate finished; the server was stopped, and the report above is what was checked until then", signalName(sig))
			e.Kind, e.Printed = codeInterrupted, true // stdout holds the report
			return e
		}
		return err
	})
	return cmd
}

func printReport(io streams, r validate.Report, deep, asJSON bool) error {
	if asJSON {
		b, err := r.JSON()
		if err != nil {
			return internalf("encode the report: %v", err)
		}
		_, _ = io.out.Write(append(b, '\n'))
	} else {
		_, _ = io.out.Write([]byte(terminalSafe(r.Text(deep)) + "\n")) // text for a person: see terminalSafe
	}
	switch {
	case !r.Connected:
		return &ExitError{Code: ExitUnavail, Quiet: true}
	case r.Result == validate.Fail:
		return &ExitError{Code: ExitToolError, Quiet: true}
	}
	return nil
}
