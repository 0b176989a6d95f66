package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/didyoumean"
)

// AgentServer runs the agent MCP server on stdio; the root command calls it
// when no subcommand is given. It is a field so cli does not depend on how
// the server is built.
type AgentServer func(cmd *cobra.Command, opts AgentOptions) error

// AgentOptions are the root options the agent server uses.
type AgentOptions struct {
	OutDir         string
	TimeoutMS      int
	RequestMS      int
	MaxText        int
	MediaKB        int
	Scan           bool
	Protocol       string
	MaxConnections int
	IdleMinutes    float64
	Version        string
}

// NewRoot builds the run-mcp command tree.
func NewRoot(version string, agent AgentServer) *cobra.Command {
	return newRoot(version, agent, "")
}

// NewRootFor builds the tree a command line needs: when its first word names
// a subcommand, the root and that subcommand (with its siblings from the
// same constructor) alone. Building every subcommand and its flags is about
// a tenth of a millisecond that each headless call would pay before its
// work starts; anything else (no word, an option first, help, completion,
// an unknown word) gets the whole tree.
func NewRootFor(version string, agent AgentServer, args []string) *cobra.Command {
	only := ""
	if len(args) > 0 {
		only = args[0]
	}
	return newRoot(version, agent, only)
}

// subcommand is one constructor of root's subcommands and the names of what
// it builds.
type subcommand struct {
	names []string
	build func() []*cobra.Command
}

func subcommands(g *globals, version string) []subcommand {
	one := func(c func() *cobra.Command) func() []*cobra.Command {
		return func() []*cobra.Command { return []*cobra.Command{c()} }
	}
	return []subcommand{
		{[]string{"list-tools", "list-resources", "list-prompts"}, func() []*cobra.Command { return newListCmds(g, version) }},
		{[]string{"read", "get-prompt", "describe"}, func() []*cobra.Command { return newReadCmds(g, version) }},
		{[]string{"call"}, one(func() *cobra.Command { return newCallCmd(g, version) })},
		{[]string{"stderr"}, one(func() *cobra.Command { return newStderrCmd(g, version) })},
		{[]string{"validate"}, one(func() *cobra.Command { return newValidateCmd(g, version) })},
		{[]string{"reconnect"}, one(func() *cobra.Command { return newReconnectCmd(g, version) })},
		{[]string{"servers"}, one(func() *cobra.Command { return newServersCmd(g) })},
		{[]string{"login", "logout"}, func() []*cobra.Command { return newLoginCmds(g, version) }},
		{[]string{"sessions"}, one(newSessionsCmd)},
		{[]string{"close-session"}, one(newCloseSessionCmd)},
		{[]string{session.DaemonCommand}, one(func() *cobra.Command { return newSessionDaemonCmd(version) })},
		{[]string{"demo-server"}, one(newDemoServerCmd)},
	}
}

// newRoot builds the tree; with only set to a name a constructor answers
// to, that constructor's subcommands alone.
func newRoot(version string, agent AgentServer, only string) *cobra.Command {
	g := newGlobals()
	root := &cobra.Command{
		Use:   "run-mcp [options]",
		Short: "Run, call, restart and diagnose the MCP server you are writing",
		Long: `run-mcp with no subcommand is an MCP server on stdio for a coding agent.
With a subcommand it runs one headless call and prints JSON:

  run-mcp [options]                          the agent server, on stdio
  run-mcp <subcommand> [options] -- <cmd>    one headless call`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownSubcommand,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.validate(); err != nil {
				return err
			}
			if !validMinutes(g.agentIdle) {
				return exitf(ExitUsage, "--idle-timeout must be a positive number of minutes (fractions allowed), got %v", g.agentIdle)
			}
			if err := g.checkOutDir(); err != nil {
				return err
			}
			if agent == nil {
				agent = serveAgent
			}
			return agent(cmd, AgentOptions{OutDir: g.outDir, TimeoutMS: g.timeoutMS, RequestMS: g.requestMS, MaxText: g.maxText, MediaKB: g.mediaKB,
				Scan: g.scan, Protocol: g.protocol, MaxConnections: g.maxConnections, IdleMinutes: g.agentIdle, Version: version})
		},
	}
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if cmd != root {
			limitHeadlessMemory()
		}
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	root.Flags().BoolP("version", "V", false, "output the version number")
	root.Flags().Var(minutes{&g.agentIdle}, "idle-timeout", "Close a connection after this many minutes without a call (0: never); its record stays for reconnect_to_mcp")
	g.addAgent(root)
	subs := subcommands(g, version)
	for _, sc := range subs {
		if slices.Contains(sc.names, only) {
			root.AddCommand(sc.build()...)
			return root
		}
	}
	for _, sc := range subs {
		root.AddCommand(sc.build()...)
	}
	return root
}

// unknownSubcommand refuses a word the root does not know, naming the
// nearest subcommand: `run-mcp lst-tools` is a typo of list-tools.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	msg := fmt.Sprintf("unknown command %q.", args[0])
	if s := didyoumean.Closest(args[0], names); s != "" {
		msg += fmt.Sprintf(" Did you mean %q?", s)
	}
	return exitf(ExitUsage, "%s Subcommands: %s (run-mcp --help describes them)", msg, strings.Join(names, ", "))
}

// Execute runs the command line and returns the process exit code, printing
// the error (with the stack when RUN_MCP_DEBUG=1 and the error is internal).
func Execute(root *cobra.Command) int {
	return execute(context.Background(), root, os.Stderr)
}

// execute runs root and maps its error to an exit code, writing the message
// to errw (a session daemon captures it for the client).
func execute(ctx context.Context, root *cobra.Command, errw io.Writer) int {
	return report(root.ExecuteContext(ctx), errw, debugging())
}

// report maps a command's error to its exit code, writing its message to
// errw (a session daemon captures it for the client).
func report(err error, errw io.Writer, withStack bool) int {
	if err == nil {
		return ExitOK
	}
	code := exitCodeOf(err)
	var ee *ExitError
	errors.As(err, &ee)
	if !(ee != nil && ee.Quiet) {
		_, _ = io.WriteString(errw, terminalSafe(fmt.Sprintf("run-mcp: %v", err))+"\n")
	}
	if code == ExitInternal && withStack {
		if st := stackOf(err); st != nil {
			fmt.Fprintf(errw, "run-mcp: the internal error arose here:\n%s\n", st)
		} else {
			// An error no part of run-mcp classified: where it was reported.
			fmt.Fprintf(errw, "run-mcp: no stack was recorded where the error arose; it was reported here:\n%s\n", debug.Stack())
		}
	}
	return code
}

// exitCodeOf is the exit code err maps to: its own, or for errors cobra
// itself returns (no code of theirs), usage or internal.
func exitCodeOf(err error) int {
	var ee *ExitError
	var se *session.Error
	if !errors.As(err, &ee) && !errors.As(err, &se) {
		return usageOrInternal(err)
	}
	return CodeOf(err)
}

// debugging says RUN_MCP_DEBUG=1 asks for the stack of internal errors.
func debugging() bool { return os.Getenv("RUN_MCP_DEBUG") == "1" }

// usageOrInternal classifies errors cobra itself returns (unknown command,
// bad flag), which are usage errors.
func usageOrInternal(err error) int {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts "} {
		if strings.HasPrefix(msg, prefix) {
			return ExitUsage
		}
	}
	return ExitInternal
}
