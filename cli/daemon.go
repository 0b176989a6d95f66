package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/internal/validate"
)

// binding is the session a handler answers for: its registry and name, and
// the caller's directory (a relative --out-dir is relative to it).
type binding struct {
	reg  *actors.Registry
	name string
	cwd  string
}

func (b *binding) run(ctx context.Context, fn func(context.Context, *actors.Conn, actors.Info) error) error {
	c, err := b.reg.Resolve(b.name, false)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	info := actors.Info{Name: b.name}
	if st.Info != nil {
		info = *st.Info
	}
	return fn(ctx, c, info)
}

// newSessionDaemonCmd is the hidden command a sessioned call starts.
func newSessionDaemonCmd(version string) *cobra.Command {
	return &cobra.Command{Use: session.DaemonCommand, Hidden: true, Args: cobra.NoArgs,
		Short: "The background process of a --session (started by run-mcp itself)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
			defer stop()
			return session.RunDaemon(ctx, version, cliWords, newShellHost(os.Stderr), sessionHandler(), os.Stdin, session.StatusFile(), os.Stderr)
		}}
}

// op is what one session operation does once connected: the same function
// its one-shot command runs.
type op func(ctx context.Context, x *job, c *actors.Conn) error

// sessionOps is the table the daemon's handler answers from, one entry per
// session.HandlerOps.
func sessionOps() map[session.Op]op {
	return map[session.Op]op{
		session.OpCall:          callTool,
		session.OpListTools:     listOf("tools"),
		session.OpListResources: listOf("resources", "resource_templates"),
		session.OpListPrompts:   listOf("prompts"),
		session.OpRead:          readResource,
		session.OpGetPrompt:     getPrompt,
		session.OpDescribe:      describeTool,
		session.OpStderr: func(ctx context.Context, x *job, c *actors.Conn) error {
			return printStderr(ctx, x.io, c, x.count, x.g.raw)
		},
		session.OpValidate: func(ctx context.Context, x *job, c *actors.Conn) error {
			return printReport(x.io, validate.Running(ctx, c, x.info), x.deep, x.asJSON || x.g.raw)
		},
		session.OpReconnect: func(ctx context.Context, x *job, _ *actors.Conn) error {
			return reconnectSession(ctx, x)
		},
	}
}

// sessionHandler answers a typed request with the same code a one-shot
// command runs, its output captured for the client. The seam is a table of
// functions rather than the command tree: nothing a request says can reach
// cobra, a flag or another subcommand.
func sessionHandler() session.Handler {
	ops := sessionOps()
	return func(ctx context.Context, reg *actors.Registry, name string, req *session.Request) session.Reply {
		run, ok := ops[req.Op]
		if !ok {
			return session.Reply{Code: ExitUsage, Stderr: fmt.Sprintf("run-mcp: the session daemon does not answer %s\n", req.Op)}
		}
		var out, errb bytes.Buffer
		x, err := jobFor(req, &binding{reg: reg, name: name, cwd: req.Cwd})
		x.io = streams{out: &out, err: &errb}
		if err == nil {
			if x.g.requestMS > 0 {
				// Every command shares the connection but brings its own
				// --request-timeout.
				ctx = actors.WithRequestTimeout(ctx, x.g.requestTimeout())
			}
			err = x.g.bound.run(ctx, func(ctx context.Context, c *actors.Conn, info actors.Info) error {
				x.info = info
				mark := 0
				if ex, ok, serr := c.Stderr(ctx, 0, 1); serr == nil && ok {
					mark = ex.Total
				}
				return withServerSide(ctx, authExit(run(ctx, x, c), true), c, mark)
			})
		}
		if x.g.raw && req.Op != session.OpReconnect {
			printEnvelope(streams{out: &out}, err)
		}
		// The caller's RUN_MCP_DEBUG, not the daemon's, asks for the stack.
		return session.Reply{Code: report(err, &errb, req.Options.Debug), Stdout: out.String(), Stderr: errb.String()}
	}
}

// jobFor builds the job a request describes.
func jobFor(req *session.Request, b *binding) (*job, error) {
	o := req.Options
	g := &globals{outDir: o.OutDir, timeoutMS: o.TimeoutMS, maxText: o.MaxText, mediaKB: intercept.DefaultMediaThresholdKB,
		showStderr: o.ShowStderr, raw: o.Raw, session: b.name, bound: b, requestMS: o.RequestTimeoutMS, task: o.Task}
	if g.maxText == 0 {
		g.maxText = intercept.DefaultMaxText
	}
	if o.MediaThreshold != nil {
		g.mediaKB = *o.MediaThreshold
	}
	x := &job{g: g, sp: &split{}, count: req.Count, deep: req.Deep, asJSON: req.JSON, started: req.Started}
	for _, p := range []string{req.Tool, req.URI, req.Prompt} {
		if p != "" {
			x.sp.positionals = append(x.sp.positionals, p)
		}
	}
	args, err := req.ArgMap()
	x.args = args
	if len(req.Shorthand) > 0 {
		x.shorthand = map[string]bool{}
		for _, k := range req.Shorthand {
			x.shorthand[k] = true
		}
	}
	return x, err
}

// request is the typed request a command sends its session: op and its
// parameters, filled in by the caller, plus the options every call shares.
func (g *globals) request(op session.Op, sp *split) *session.Request {
	req := &session.Request{Op: op, Session: g.session}
	if len(sp.positionals) > 0 {
		switch op {
		case session.OpCall, session.OpDescribe:
			req.Tool = sp.positionals[0]
		case session.OpRead:
			req.URI = sp.positionals[0]
		case session.OpGetPrompt:
			req.Prompt = sp.positionals[0]
		}
	}
	return req
}
