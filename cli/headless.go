package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
)

// headless describes one subcommand that reaches a target: its words before
// the target command and what it does once connected.
type headless struct {
	use, short, example string
	layout              layout
	stringArgs          bool // prompt arguments: key:=json is refused
	run                 func(ctx context.Context, x *exec, c *actors.Conn) error
}

// exec is what a connected subcommand works with.
type exec struct {
	io   streams
	g    *globals
	sp   *split
	args map[string]any // the parsed argument words
	info actors.Info
}

// newHeadlessCmd builds a subcommand that splits its words from the target,
// spawns the target for one shot, runs h.run and stops the target.
func newHeadlessCmd(g *globals, version string, h headless) *cobra.Command {
	cmd := &cobra.Command{Use: h.use, Short: h.short, Example: h.example, DisableFlagParsing: true}
	g.addHeadless(cmd)
	cmd.RunE = func(cmd *cobra.Command, raw []string) error {
		sp, cfg, err := prepare(cmd, g, raw, h.layout)
		if err != nil || sp == nil {
			return err
		}
		x := &exec{io: streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}, g: g, sp: sp}
		if h.layout.argWords {
			// Malformed arguments fail before anything is spawned.
			if x.args, err = parseToolArgs(sp.argWords, h.stringArgs); err != nil {
				return err
			}
		}
		return oneShot(cmd.Context(), x.io, cfg, version, func(ctx context.Context, c *actors.Conn, info actors.Info) error {
			x.info = info
			return h.run(ctx, x, c)
		})
	}
	return cmd
}

// prepare splits the command line, handles --help, checks the options and
// builds the connection config. A nil split means help was printed.
func prepare(cmd *cobra.Command, g *globals, raw []string, l layout) (*split, actors.Config, error) {
	sp, err := splitArgs(cmd, raw, l)
	if err != nil {
		return nil, actors.Config{}, err
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil, actors.Config{}, cmd.Help()
	}
	if err := g.validate(); err != nil {
		return nil, actors.Config{}, err
	}
	if g.session != "" || g.idleTimeout != 0 {
		return nil, actors.Config{}, exitf(ExitUsage, "--session and --idle-timeout are not in this build yet (the session daemon comes in a later release); run the command without them for a one-shot call")
	}
	if len(sp.positionals) < l.positionals {
		return nil, actors.Config{}, exitf(ExitUsage, "missing argument: usage: run-mcp %s", cmd.Use)
	}
	cfg, err := g.config(sp.target)
	return &sp, cfg, err
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
