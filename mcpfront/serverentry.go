package mcpfront

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/configscan"
	"github.com/run-mcp/run-mcp/wire"
)

// serverConfig fills cfg from the registered entry server names, launched
// as its client would: its command, args, cwd and env (${VAR} expanded from
// run-mcp's environment), or its url and headers. env and cwd in a add to
// and override the entry's.
func (f *front) serverConfig(cfg actors.Config, server string, a map[string]any) (actors.Config, error) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	l, err := configscan.Find(configscan.Options{Home: home, Cwd: cwd, Scan: f.opts.Scan}, server)
	if err != nil {
		return cfg, serverError(err)
	}
	extra := getStrMap(a, "env")
	var unfilled []string
	for _, k := range l.Unfilled {
		if _, ok := extra[k]; !ok {
			unfilled = append(unfilled, k)
		}
	}
	if len(unfilled) > 0 {
		return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf(
			"server %q (%s, %s) sets %s from an ${input:…} its editor asks for, which run-mcp cannot; pass it in env",
			l.Entry.Name, l.Entry.Source, l.Entry.File, strings.Join(unfilled, ", "))}
	}
	if l.URL != "" {
		// The entry's headers, with the call's over them.
		cfg.URL, cfg.Headers = l.URL, l.HeadersWith(getStrMap(a, "headers"))
		return withOAuth(cfg, a)
	}
	if h := getStrMap(a, "headers"); len(h) > 0 {
		return cfg, stdioHeaders(h)
	}
	env := maps.Clone(l.Env)
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, extra)
	dir := getStr(a, "cwd")
	if dir == "" {
		dir = l.Cwd
	}
	if dir == "" {
		dir = cwd
	}
	cfg.Spec = wire.Spec{Command: l.Command, Args: l.Args, Env: env, Dir: dir}
	return cfg, nil
}

// serverError words a server= that names no entry, or several.
func serverError(err error) error {
	var nf *configscan.NotFoundError
	var amb *configscan.AmbiguousError
	msg := err.Error()
	switch {
	case errors.As(err, &nf):
		msg += " list_available_mcp_servers lists them (start run-mcp with --scan to include stray JSON files)."
	case errors.As(err, &amb):
		msg += fmt.Sprintf(" Pick one with server=%q.", amb.Selectors()[0])
		if rest := amb.Selectors()[1:]; len(rest) > 0 {
			msg = strings.TrimSuffix(msg, ".") + " or " + strings.Join(quoteAll(rest), " or ") + "."
		}
	}
	return &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "server: " + msg}
}

func quoteAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = fmt.Sprintf("server=%q", s)
	}
	return out
}
