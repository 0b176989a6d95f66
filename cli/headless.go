package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/intercept"
)

// headless describes one subcommand that reaches a target: its words before
// the target command and what it does once connected.
type headless struct {
	use, short, example string
	layout              layout
	stringArgs          bool   // prompt arguments: key:=json is refused
	needsSession        string // refused without --session, with this reason
	saves               bool   // writes media and spilled text to --out-dir
	run                 func(ctx context.Context, x *job, c *actors.Conn) error
}

// job is what a connected subcommand works with.
type job struct {
	io   streams
	g    *globals
	sp   *split
	args map[string]any // the parsed argument words
	info actors.Info
	ic   *intercept.Interceptor // set when the command saves files
}

// newHeadlessCmd builds a subcommand that splits its words from the target,
// spawns the target for one shot, runs h.run and stops the target.
func newHeadlessCmd(g *globals, version string, h headless) *cobra.Command {
	cmd := &cobra.Command{Use: h.use, Short: h.short, Example: h.example, DisableFlagParsing: true}
	g.addHeadless(cmd)
	cmd.RunE = func(cmd *cobra.Command, raw []string) error {
		sp, err := prepare(cmd, g, raw, h.layout)
		if err != nil || sp == nil {
			return err
		}
		if h.needsSession != "" && g.session == "" && g.bound == nil {
			return exitf(ExitUsage, "%s", h.needsSession)
		}
		x := &job{io: streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}, g: g, sp: sp}
		if h.layout.argWords {
			// Malformed arguments fail before anything is spawned.
			if x.args, err = parseToolArgs(sp.argWords, h.stringArgs); err != nil {
				return err
			}
		}
		if h.saves {
			// A bad output directory fails before anything is spawned.
			if x.ic, err = g.interceptor(); err != nil {
				return err
			}
		}
		return withTarget(cmd, g, version, raw, sp, func(ctx context.Context, c *actors.Conn, info actors.Info) error {
			x.info = info
			return h.run(ctx, x, c)
		})
	}
	return cmd
}

// prepare splits the command line, handles --help and checks the options.
// A nil split means help was printed.
func prepare(cmd *cobra.Command, g *globals, raw []string, l layout) (*split, error) {
	sp, err := splitArgs(cmd, raw, l)
	if err != nil {
		return nil, err
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil, cmd.Help()
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	if err := g.validateSession(); err != nil {
		return nil, err
	}
	if len(sp.positionals) < l.positionals {
		return nil, exitf(ExitUsage, "missing argument: usage: run-mcp %s", cmd.Use)
	}
	return &sp, nil
}

// withTarget runs fn against the command's target: inside a session daemon,
// its connection; for a sessioned call, the daemon (the call is forwarded
// and its output printed); otherwise a fresh spawn for one shot.
func withTarget(cmd *cobra.Command, g *globals, version string, raw []string, sp *split,
	fn func(context.Context, *actors.Conn, actors.Info) error) error {
	switch {
	case g.bound != nil:
		return g.bound.run(cmd.Context(), fn)
	case g.session != "":
		return forward(cmd, g, version, raw, sp)
	}
	cfg, err := g.config(sp.target)
	if err != nil {
		return err
	}
	io := streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
	return oneShot(cmd.Context(), io, cfg, version, fn)
}

// failed maps an engine error of a connected command to exit 1.
func failed(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*ExitError); ok {
		return err
	}
	return exitf(ExitToolError, "%v", err)
}
