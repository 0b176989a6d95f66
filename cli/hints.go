package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/wire"
)

// withStartHints adds to a server's failed start what its evidence points
// at that the engine's report cannot know: a variable of the user's shell
// the server names but never got (run-mcp passes a whitelist), or a
// package manager that may still be downloading a server that said
// nothing before the connect budget ran out. err keeps its type (and so
// its exit code); the hints go under its first line.
func withStartHints(err error, cfg actors.Config) error {
	if cfg.URL != "" || err == nil {
		return err
	}
	var text, stderr []string
	var ce *actors.ConnectError
	var se *session.Error
	switch {
	case errors.As(err, &ce) && !ce.NotFound && !ce.Report.NoProcess:
		stderr = ce.Report.Stderr
		text = append(append(text, ce.Reason), stderr...)
		for _, n := range ce.Report.Noise {
			text = append(text, n.Text)
		}
	case errors.As(err, &se) && se.Code == ExitUnavail:
		stderr = se.Stderr
		text = append(append(text, firstLineOf(se.Error())), stderr...)
	default:
		return err
	}
	for _, h := range startHints(cfg, err.Error(), text, stderr) {
		err = &actors.Advised{Err: err, Advice: h}
	}
	return err
}

// startHints are the hints for a failed start: msg is the failure's text,
// text what the server and the engine said (its reason, stderr, stdout
// noise), stderr what the server wrote to stderr.
func startHints(cfg actors.Config, msg string, text, stderr []string) []string {
	if cfg.URL != "" {
		return nil
	}
	var out []string
	if names := unpassedEnv(cfg.Spec.Env, text); len(names) > 0 {
		out = append(out, envHint(names))
	}
	if silentTimeout(msg, stderr) {
		if h := downloadHint(cfg.Spec); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// envWord is a word that could name an environment variable in a
// server's message: upper case, digits and '_' (API_KEY, DATABASE_URL).
// Lower-case words are left alone: they are prose far more often.
var envWord = lazyRegexp(`\b[A-Z_][A-Z0-9_]+\b`)

// unpassedEnv names the variables the text mentions that are set in
// run-mcp's own environment but do not reach the server: neither the
// whitelist nor --env passed them. Names only: never a value.
func unpassedEnv(explicit map[string]string, text []string) []string {
	var passed []string
	for _, kv := range wire.BuildEnv(explicit) {
		k, _, _ := strings.Cut(kv, "=")
		passed = append(passed, k)
	}
	var out []string
	for _, line := range text {
		for _, w := range envWord().FindAllString(line, -1) {
			if _, set := os.LookupEnv(w); !set || slices.Contains(out, w) ||
				slices.ContainsFunc(passed, func(p string) bool { return strings.EqualFold(p, w) }) {
				continue
			}
			out = append(out, w)
		}
	}
	return out
}

// envHint says which of the user's variables the server did not get and
// how to pass each on, by name: the shell fills in the value.
func envHint(names []string) string {
	if len(names) > 3 {
		names = names[:3]
	}
	var pass []string
	for _, n := range names {
		pass = append(pass, fmt.Sprintf(`--env %s="$%s"`, n, n))
	}
	verb := "is"
	if len(names) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("Note: the server's output names %s, which %s set in your environment but not passed to the server: "+
		"run-mcp starts a server with only PATH, HOME, SHELL and USER (and their Windows equivalents) and what --env gives it. "+
		"If the server needs it, pass it on: %s", strings.Join(names, ", "), verb, strings.Join(pass, " "))
}

// silentTimeout says a server started, wrote nothing to stderr, and never
// completed the handshake within the connect budget, from the engine's
// words for it (the reason, or its diagnosis: the engine gives no type).
func silentTimeout(msg string, stderr []string) bool {
	if len(stderr) > 0 {
		return false
	}
	for _, said := range []string{"It started but never answered", "did not complete the MCP handshake within", "did not answer server/discover within"} {
		if strings.Contains(msg, said) {
			return true
		}
	}
	return false
}

// launchers are the package runners that fetch a server on its first run,
// silently: the word before the package, and the subcommand that runs one
// ("" when the runner takes the package at once).
var launchers = map[string]string{"npx": "", "pnpx": "", "bunx": "", "uvx": "", "pnpm": "dlx", "yarn": "dlx", "pipx": "run"}

// downloadHint says that a package runner may still be fetching the
// server ("" when the command is not one).
func downloadHint(spec wire.Spec) string {
	// Either separator: a Windows path names npx.cmd the same anywhere.
	base := spec.Command[strings.LastIndexAny(spec.Command, `/\`)+1:]
	runner := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(base), ".cmd"), ".exe")
	sub, ok := launchers[runner]
	if !ok {
		return ""
	}
	args := spec.Args
	if sub != "" {
		if len(args) == 0 || args[0] != sub {
			return ""
		}
		args = args[1:]
	}
	pkg := "the package"
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			pkg = a
			break
		}
	}
	return fmt.Sprintf("Note: %s may still be downloading %s: the first run of a package fetches it, and prints nothing while it does. "+
		"Run the same command once in a terminal to let it finish, then try again, or give the first start more time with --connect-timeout 120000",
		runner, pkg)
}
