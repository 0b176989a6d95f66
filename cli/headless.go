package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
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
	calls               bool   // calls the server (--timeout)
	showStderr          bool   // can show what the server wrote (--show-stderr)
	// raw says in one sentence what --raw prints for this command.
	raw string
	// long is the help's text above the flags ("" for none).
	long string
	run  func(ctx context.Context, x *job, c *actors.Conn) error
}

// job is what a connected subcommand works with.
type job struct {
	io   streams
	g    *globals
	sp   *split
	args map[string]any // the parsed argument words
	// shorthand names the args written key=value (typed by the schema).
	shorthand map[string]bool
	info      actors.Info
	// count, deep and asJSON are the words of stderr and validate.
	count        int
	deep, asJSON bool
	// started: this command started the session (reconnect reports it).
	started bool
	ic      *intercept.Interceptor // set when the command saves files
}

// newHeadlessCmd builds a subcommand that splits its words from the target,
// spawns the target for one shot, runs h.run and stops the target.
func newHeadlessCmd(g *globals, version string, h headless) *cobra.Command {
	cmd := &cobra.Command{Use: h.use, Short: h.short, Long: h.long, Example: h.example, DisableFlagParsing: true}
	g.addTarget(cmd, h.raw)
	if h.saves {
		g.addOutput(cmd)
	}
	if h.calls {
		g.addCallTimeout(cmd)
	}
	if h.showStderr {
		g.addShowStderr(cmd)
	}
	cmd.RunE = withRawFailures(g, func(cmd *cobra.Command, raw []string, io streams) error {
		return runHeadless(cmd, g, version, h, raw, io)
	})
	return cmd
}

// runHeadless is one headless command's run.
func runHeadless(cmd *cobra.Command, g *globals, version string, h headless, raw []string, io streams) error {
	{
		sp, err := prepare(cmd, g, raw, h.layout)
		if err != nil || sp == nil {
			return err
		}
		if h.needsSession != "" && g.session == "" {
			return exitf(ExitUsage, "%s", h.needsSession)
		}
		if g.session == "" {
			io = io.withFeedback(cmd)
		}
		x := &job{io: io, g: g, sp: sp}
		if h.layout.argWords {
			// Malformed arguments fail before anything is spawned.
			set, err := parseArgs(sp.argWords, h.stringArgs, cmd.InOrStdin())
			if err != nil {
				return err
			}
			x.args, x.shorthand = set.values, set.shorthand
			if h.stringArgs {
				x.shorthand = nil // prompt arguments are strings
			}
		}
		g.saves = h.saves
		if h.saves && g.session == "" {
			// A bad output directory fails before anything is spawned. A
			// running session's daemon checks it for the call (relative to
			// this directory); one about to be started is checked before
			// its start (attachOrStart).
			if x.ic, err = g.interceptor(); err != nil {
				return err
			}
		}
		req := g.request(session.Op(cmd.Name()), sp)
		if h.layout.argWords {
			if req.Args, err = session.EncodeArgs(x.args); err != nil {
				return internalf("encode the arguments: %v", err)
			}
			for k, ok := range x.shorthand {
				if ok {
					req.Shorthand = append(req.Shorthand, k)
				}
			}
			sort.Strings(req.Shorthand)
		}
		return withTarget(cmd, g, version, io, sp, req, func(ctx context.Context, c *actors.Conn, info actors.Info) error {
			x.info = info
			return h.run(ctx, x, c)
		})
	}
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
	g.idleSet = cmd.Flags().Changed("idle-timeout")
	if err := g.validateSession(cmd.Flags().Changed("session")); err != nil {
		return nil, err
	}
	if len(sp.positionals) < l.positionals {
		return nil, exitf(ExitUsage, "missing argument: usage: run-mcp %s", cmd.Use)
	}
	return &sp, nil
}

// withTarget runs fn against the command's target: for a sessioned call,
// the daemon answers req (and its output is printed); otherwise a fresh
// spawn for one shot.
func withTarget(cmd *cobra.Command, g *globals, version string, io streams, sp *split, req *session.Request,
	fn func(context.Context, *actors.Conn, actors.Info) error) error {
	if g.session != "" {
		return forward(cmd, g, io, sp, req)
	}
	cfg, err := g.config(sp.target)
	if err != nil {
		return err
	}
	return oneShot(cmd.Context(), io.withFeedback(cmd), cfg, version, fn)
}

// withFeedback is io with the waits and progress of a one-shot command
// shown on the command's stderr when that is a terminal (io.err may be
// holding status lines for --raw; the terminal's line erases itself).
func (io streams) withFeedback(cmd *cobra.Command) streams {
	if io.fb == nil {
		io.fb = feedbackFor(cmd.ErrOrStderr())
	}
	return io
}

// failed maps an engine error of a connected command to exit 1.
func failed(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*ExitError); ok {
		return err
	}
	return exitf(ExitToolError, "%w", err)
}

// failed maps an engine error to its exit code: a request the server left
// unanswered is 69 one-shot (the server is unavailable, as 3.0 exits) and
// 1 on a session; anything else is 1.
func (g *globals) failed(err error) error {
	if actors.IsTimeout(err) {
		e := exitf(ExitToolError, "%w", err)
		if g.bound == nil {
			e.Code = ExitUnavail
		}
		e.Kind = codeTimeout
		return e
	}
	var ce *actors.CodedError
	if g.bound != nil && errors.As(err, &ce) && ce.Code == actors.CodeNoConnection {
		return exitf(ExitToolError, "%s", notConnected(g.bound.name, ce.Msg))
	}
	return failed(err)
}

// notConnected words a call on a session whose server is not running as
// 3.0 did ("not connected"), with the shell's way back: the engine's
// message speaks of the connection and of the agent's tool.
func notConnected(name, msg string) string {
	why := msg
	if _, after, ok := strings.Cut(msg, " is not running: "); ok {
		why = after
	}
	if before, _, ok := strings.Cut(why, ". Reconnect to start it again"); ok {
		why = before
	}
	return fmt.Sprintf("%s: session %q is not connected: %s. Start its server again with: run-mcp reconnect --session %s (close-session %s ends the session)",
		actors.CodeNoConnection, name, strings.TrimSuffix(why, "."), name, name)
}
