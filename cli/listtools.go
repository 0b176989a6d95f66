package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
)

func newListToolsCmd(g *globals, version string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list-tools [options] [-- target_command...]",
		Short: "List the tools of a server as JSON",
		Example: `  run-mcp list-tools -- node my-server.js
  run-mcp list-tools -- http://localhost:3000/mcp`,
		DisableFlagParsing: true,
	}
	g.addHeadless(cmd)
	cmd.RunE = func(cmd *cobra.Command, raw []string) error {
		sp, cfg, err := prepare(cmd, g, raw, layout{})
		if err != nil || sp == nil {
			return err
		}
		io := streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
		return oneShot(cmd.Context(), io, cfg, version, func(ctx context.Context, c *actors.Conn, _ actors.Info) error {
			res, err := c.List(ctx, "tools")
			if err != nil {
				return exitf(ExitToolError, "%v", err)
			}
			return io.printJSON(res)
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
