package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/configscan"
	"github.com/run-mcp/run-mcp/wire"
)

// newServersCmd builds `servers`: what list_available_mcp_servers finds,
// as JSON, with its filters.
func newServersCmd(g *globals) *cobra.Command {
	var filter, file string
	cmd := &cobra.Command{Use: "servers [--filter TEXT] [--file PATH] [--scan]",
		Short: "List the MCP servers registered with the clients on this machine, as JSON",
		Long: `List the MCP servers registered with the clients on this machine (Claude Code, Claude Desktop,
Cursor, VS Code, Cline, Copilot CLI, Codex, Gemini CLI, Windsurf, Zed): what
list_available_mcp_servers finds, as JSON. Env variables and headers are listed by name,
never by value. Run one with --server NAME on any headless command.`,
		Example: "  run-mcp servers\n  run-mcp servers --filter node\n  run-mcp servers --file ./.mcp.json\n" +
			"  run-mcp list-tools --server my-server",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res := configscan.Discover(configscan.Options{Filter: filter, File: file, Scan: g.scan})
			out := map[string]any{"servers": res.Entries, "errors": res.Errors, "searched": res.Searched}
			if err := (streams{out: cmd.OutOrStdout()}).printJSON(out); err != nil {
				return err
			}
			if file != "" && len(res.Entries) == 0 && len(res.Errors) > 0 {
				return &ExitError{Code: ExitNoInput, Err: fmt.Errorf("cannot read %s: %s", res.Errors[0].File, res.Errors[0].Reason)}
			}
			return nil
		}}
	cmd.Flags().StringVar(&filter, "filter", "", "Only entries whose name, command, url, source or file contains this (case-insensitive)")
	cmd.Flags().StringVar(&file, "file", "", "Read this one config file instead of every client's")
	cmd.Flags().BoolVar(&g.scan, "scan", false, "Also walk up from the working directory for any JSON file containing mcpServers")
	return cmd
}

// serverConfig builds the connection config of the registered entry
// --server names, the way its client would launch it; --env adds to (and
// overrides) the entry's env.
func (g *globals) serverConfig(cfg actors.Config, target []string) (actors.Config, error) {
	if len(target) > 0 {
		return cfg, exitf(ExitUsage, "--server %s names the server to run, and so does the target command %q: give one of them", g.server, target[0])
	}
	if g.resolved != nil {
		return g.withConfig(cfg, *g.resolved)
	}
	l, err := configscan.Find(configscan.Options{File: g.serverFile, Scan: g.scan}, g.server)
	if err != nil {
		return cfg, serverLookupError(err, g.serverFile)
	}
	g.resolved = &l
	return g.withConfig(cfg, l)
}

func (g *globals) withConfig(cfg actors.Config, l configscan.Launch) (actors.Config, error) {
	extra, err := g.parseEnv()
	if err != nil {
		return cfg, err
	}
	var unfilled []string
	for _, k := range l.Unfilled {
		if _, ok := extra[k]; !ok {
			unfilled = append(unfilled, k)
		}
	}
	if len(unfilled) > 0 {
		return cfg, exitf(ExitUsage, "server %q (%s, %s) sets %s from an ${input:…} its editor asks for, which run-mcp cannot; give it with --env %s=…",
			l.Entry.Name, l.Entry.Source, l.Entry.File, strings.Join(unfilled, ", "), unfilled[0])
	}
	headers, err := g.parseHeaders()
	if err != nil {
		return cfg, err
	}
	if l.URL != "" {
		if len(extra) > 0 {
			return cfg, httpEnv(wire.EnvKeys(extra))
		}
		// The entry's headers, with the command line's over them.
		merged := l.HeadersWith(headers)
		cfg.URL, cfg.Headers, cfg.OAuth = l.URL, merged, g.oauth
		return cfg, nil
	}
	if len(headers) > 0 {
		return cfg, stdioHeaders(headerKeys(headers))
	}
	env := maps.Clone(l.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, extra)
	for k := range env {
		if err := wire.CheckEnvKey(k); err != nil {
			return cfg, exitf(ExitUsage, "server %q (%s): its env has a name run-mcp cannot pass on: %v", l.Entry.Name, l.Entry.File, err)
		}
	}
	dir := l.Cwd
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return cfg, exitf(ExitToolError, "cannot read the working directory (%v); cd to a directory that exists", err)
		}
	}
	cfg.Spec = wire.Spec{Command: l.Command, Args: l.Args, Env: env, Dir: dir}
	return cfg, nil
}

// serverLookupError words a failed --server: unknown or ambiguous names
// are usage errors that say how to list or pick.
func serverLookupError(err error, file string) error {
	var nf *configscan.NotFoundError
	var amb *configscan.AmbiguousError
	switch {
	case errors.As(err, &nf):
		where := "run-mcp servers lists them"
		if file != "" {
			where = fmt.Sprintf("looked only in %s; run-mcp servers --file %s lists it", file, file)
		}
		return exitf(ExitUsage, "--server: %v (%s)", err, where)
	case errors.As(err, &amb):
		return exitf(ExitUsage, "--server: %v Pick one with --server '%s', or with --server %s --file PATH",
			err, strings.Join(amb.Selectors(), "' or --server '"), amb.Name)
	}
	return exitf(ExitUsage, "--server: %v", err)
}
