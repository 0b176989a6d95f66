package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/configscan"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// Defaults of the headless commands: the specification's 300,000 ms for
// every mode (3.0's headless 30 s is not kept).
const (
	headlessTimeout = 5 * time.Minute
	agentTimeout    = 5 * time.Minute
)

// globals are the options every command shares.
type globals struct {
	outDir         string
	timeoutMS      int
	requestMS      int
	maxText        int
	mediaKB        int
	scan           bool
	protocol       string
	maxConnections int
	env            []string
	headers        []string // --header 'Name: value'
	bearerEnv      string   // --bearer-env NAME
	// oauth is --client-id, --client-secret and --client-metadata-url.
	oauth          oauth.Options
	connectTimeout int
	showStderr     bool
	raw            bool
	task           bool // call --task
	session        string
	idleTimeout    float64
	idleSet        bool // --idle-timeout was given (0 clears a session's)
	saves          bool // the command writes media and spilled text to --out-dir
	agentIdle      float64
	// server and serverFile are --server NAME and --file PATH: a registered
	// entry as the target; resolved is its launch once looked up.
	server     string
	serverFile string
	resolved   *configscan.Launch
	// bound is set inside a session daemon (see binding).
	bound *binding
}

// newGlobals is the options at their defaults: a command that does not
// offer a flag (list-tools has no --max-text) still reads its default.
func newGlobals() *globals {
	return &globals{requestMS: int(actors.DefaultRequestTimeout.Milliseconds()), maxText: intercept.DefaultMaxText,
		mediaKB: intercept.DefaultMediaThresholdKB, protocol: "legacy", maxConnections: actors.DefaultMaxConnections}
}

// Each command offers only the flags it uses, so its --help is a true list
// and a flag it would ignore is refused (exit 64, saying whose flag it is)
// rather than silently dropped. The flag sets below are shared by the
// commands that use them.

// addAgent adds the agent server's flags, on the root command alone.
func (g *globals) addAgent(cmd *cobra.Command) {
	f := cmd.Flags()
	g.addOutputTo(f)
	f.VarP(millis{&g.timeoutMS, "--timeout", true}, "timeout", "t", "Default tool call timeout in milliseconds, counting server time only (default: 300000)")
	g.addRequestTimeoutTo(f)
	f.BoolVar(&g.scan, "scan", false, "Let list_available_mcp_servers also walk up from the working directory for any JSON file containing mcpServers")
	g.addProtocolTo(f)
	f.IntVar(&g.maxConnections, "max-connections", actors.DefaultMaxConnections, fmt.Sprintf("How many connections the agent server keeps open at once (1 to %d)", actors.MaxMaxConnections))
}

func (g *globals) addOutputTo(f *pflag.FlagSet) {
	f.StringVarP(&g.outDir, "out-dir", "o", "", "Directory to save intercepted images, audio, and spilled results (default <tmp>/run-mcp-<uid>/out)")
	f.IntVar(&g.maxText, "max-text", intercept.DefaultMaxText, "Max text response length before truncation; the rest is saved to a file under --out-dir (-1: no limit)")
	f.IntVarP(&g.mediaKB, "media-threshold", "m", intercept.DefaultMediaThresholdKB, "Media size threshold in KB to save to disk (0 to always save, -1 to keep inline)")
}

func (g *globals) addRequestTimeoutTo(f *pflag.FlagSet) {
	f.Var(millis{&g.requestMS, "--request-timeout", false}, "request-timeout",
		"Milliseconds the server may take to answer each housekeeping request (tools/list and the other listings, subscribe, listen, logging/setLevel, ping); calls use --timeout")
}

func (g *globals) addProtocolTo(f *pflag.FlagSet) {
	f.StringVar(&g.protocol, "protocol", "legacy", "Handshake to open with: legacy, auto (probe for 2026-07-28, fall back), or a revision to pin such as 2026-07-28")
}

// addTarget adds the flags of every command that reaches a target: which
// server and how to start it, the session, and --raw, whose sentence says
// what it prints for this command.
func (g *globals) addTarget(cmd *cobra.Command, raw string) {
	f := cmd.Flags()
	f.StringArrayVarP(&g.env, "env", "e", nil, "Environment variable for the target, KEY=VALUE (repeatable; the first = splits)")
	f.StringArrayVarP(&g.headers, "header", "H", nil, "HTTP header for an HTTP target, 'Name: value' (repeatable; sent to the target's origin only, never shown)")
	f.StringVar(&g.bearerEnv, "bearer-env", "", "For an HTTP target: send Authorization: Bearer with the value of this environment variable")
	g.addOAuthTo(f)
	f.Var(millis{&g.connectTimeout, "--connect-timeout", true}, "connect-timeout", "Milliseconds to wait for the handshake (default 30000)")
	g.addRequestTimeoutTo(f)
	g.addProtocolTo(f)
	f.StringVar(&g.server, "server", "", "Run the server registered under this name in a client's config (run-mcp servers lists them) instead of a target command; SOURCE:NAME or --file picks among several")
	f.StringVar(&g.serverFile, "file", "", "With --server: look the name up in this one config file")
	f.BoolVar(&g.scan, "scan", false, "With --server: also walk up from the working directory for any JSON file containing mcpServers")
	f.StringVar(&g.session, "session", "", "Keep the server running between commands under this name (letters, digits, '.', '_', '-'; at most 200 bytes)")
	f.Var(minutes{&g.idleTimeout}, "idle-timeout", "With --session: close the session after this many minutes without a command (0: never)")
	f.BoolVar(&g.raw, "raw", false, raw+". A failure prints {error, code, exit_code, exit, stderr} on stdout and nothing on stderr")
	cmd.ValidArgsFunction = completeSessionFlag
}

// addOutput adds the flags of a command whose result may carry media or
// long text: where they are saved, and when.
func (g *globals) addOutput(cmd *cobra.Command) { g.addOutputTo(cmd.Flags()) }

// addCallTimeout adds --timeout, for commands that call the server (a
// tool, a resource, a prompt).
func (g *globals) addCallTimeout(cmd *cobra.Command) {
	cmd.Flags().VarP(millis{&g.timeoutMS, "--timeout", true}, "timeout", "t", "Timeout of the call in milliseconds, counting server time only (default 300000)")
}

// addShowStderr adds --show-stderr, for commands that send the server one
// request and can say what it wrote meanwhile.
func (g *globals) addShowStderr(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&g.showStderr, "show-stderr", false, "Print the server's stderr from this command on stderr")
}

// callTimeout is the per-call server-time budget.
func (g *globals) callTimeout(def time.Duration) time.Duration {
	if g.timeoutMS > 0 {
		return time.Duration(g.timeoutMS) * time.Millisecond
	}
	return def
}

// requestTimeout is the housekeeping budget of every request other than a
// call.
func (g *globals) requestTimeout() time.Duration {
	return time.Duration(g.requestMS) * time.Millisecond
}

// cliWords name the shell's flags in the engine's timeout messages.
var cliWords = actors.Words{RequestTimeout: "--request-timeout", CallTimeout: "--timeout",
	Stderr: "with --session, run-mcp stderr shows all of it"}

// validate checks option values a flag parser cannot.
func (g *globals) validate() error {
	if g.timeoutMS < 0 {
		return exitf(ExitUsage, "--timeout must be a positive number of milliseconds, got %d", g.timeoutMS)
	}
	if g.requestMS <= 0 {
		return exitf(ExitUsage, "--request-timeout must be a positive number of milliseconds, got %d", g.requestMS)
	}
	if g.connectTimeout < 0 {
		return exitf(ExitUsage, "--connect-timeout must be a positive number of milliseconds, got %d", g.connectTimeout)
	}
	if g.maxText == 0 || g.maxText < -1 {
		return exitf(ExitUsage, "--max-text must be a positive number of characters (or -1 for no limit), got %d", g.maxText)
	}
	if g.mediaKB < -1 {
		return exitf(ExitUsage, "--media-threshold must be 0 (always save), -1 (keep inline) or a size in KB, got %d", g.mediaKB)
	}
	if g.maxConnections < 1 || g.maxConnections > actors.MaxMaxConnections {
		return exitf(ExitUsage, "--max-connections must be from 1 to %d, got %d", actors.MaxMaxConnections, g.maxConnections)
	}
	if _, err := wire.ParseEra(g.protocol); err != nil {
		return exitf(ExitUsage, "--protocol expects legacy, auto or a YYYY-MM-DD revision: %v", err)
	}
	return checkOAuth(g.oauth)
}

// parseEnv reads the --env values. Its errors name the key at most, never
// what follows the "=": that is the secret the flag exists to carry.
func (g *globals) parseEnv() (map[string]string, error) {
	env := map[string]string{}
	for _, kv := range g.env {
		k, v, err := parseEnvToken(kv)
		if err != nil {
			return nil, err
		}
		env[k] = v
	}
	return env, nil
}

func parseEnvToken(kv string) (key, value string, err error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		// Most likely a key whose "=VALUE" was forgotten, so it is shown;
		// anything that could not be a key may be a bare secret, and is not.
		if wire.CheckEnvKey(kv) == nil {
			return "", "", exitf(ExitUsage, "--env expects KEY=VALUE, got %q with no \"=\"; give it a value, e.g. --env %s=...", kv, kv)
		}
		return "", "", exitf(ExitUsage, "--env expects KEY=VALUE, got a word with no \"=\" (not shown: it may be a secret); repeat --env once per KEY=VALUE")
	}
	if err := wire.CheckEnvKey(k); err != nil {
		return "", "", exitf(ExitUsage, "--env expects KEY=VALUE: %v (the value is not shown)", err)
	}
	return k, v, nil
}

// config builds the connection config for a target command line.
func (g *globals) config(target []string) (actors.Config, error) {
	era, _ := wire.ParseEra(g.protocol)
	cfg := actors.Config{Era: era, ConnectTimeout: time.Duration(g.connectTimeout) * time.Millisecond, RequestTimeout: g.requestTimeout()}
	if g.server != "" {
		return g.serverConfig(cfg, target)
	}
	if g.serverFile != "" {
		return cfg, exitf(ExitUsage, "--file goes with --server: it names the config file to look the server up in")
	}
	env, err := g.parseEnv()
	if err != nil {
		return cfg, err
	}
	if len(target) == 0 {
		return cfg, exitf(ExitUsage, "no target command: the server to run must follow run-mcp's words, separated by '--', e.g. run-mcp list-tools -- node my-server.js (or an http:// URL), or --server NAME for one registered with your client (run-mcp servers lists them)")
	}
	headers, err := g.parseHeaders()
	if err != nil {
		return cfg, err
	}
	if strings.HasPrefix(target[0], "http://") || strings.HasPrefix(target[0], "https://") {
		if len(target) > 1 {
			return cfg, exitf(ExitUsage, "an HTTP target is one URL; got extra words %q", target[1:])
		}
		if len(env) > 0 {
			return cfg, httpEnv(wire.EnvKeys(env))
		}
		cfg.URL, cfg.Headers, cfg.OAuth = target[0], headers, g.oauth
		return cfg, nil
	}
	if len(headers) > 0 {
		return cfg, stdioHeaders(headerKeys(headers))
	}
	if g.oauth != (oauth.Options{}) {
		return cfg, exitf(ExitUsage, "--client-id, --client-secret and --client-metadata-url are for an HTTP target's OAuth; a server run-mcp starts over stdio takes its credentials from --env")
	}
	dir, err := os.Getwd()
	if err != nil {
		return cfg, exitf(ExitToolError, "cannot read the working directory (%v); cd to a directory that exists", err)
	}
	cfg.Spec = wire.Spec{Command: target[0], Args: target[1:], Env: env, Dir: dir}
	return cfg, nil
}

// httpEnv refuses --env for an HTTP target rather than drop it: the
// variables set the environment of a server run-mcp starts, and it does not
// start one it reaches by URL.
func httpEnv(keys []string) error {
	return exitf(ExitUsage, "--env %s cannot reach an HTTP target: --env sets the environment of a server run-mcp starts, and a server at a URL is already running with its own. "+
		"Set the variable where that server is started, or leave --env out", strings.Join(keys, ", "))
}

// outDirPath is --out-dir made absolute ("" for the default).
func (g *globals) outDirPath() string {
	dir := g.outDir
	if dir != "" && !filepath.IsAbs(dir) && g.bound != nil && g.bound.cwd != "" {
		dir = filepath.Join(g.bound.cwd, dir) // relative to the caller, not the daemon
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err == nil {
			dir = abs
		}
	}
	return dir
}

// interceptor builds the result interceptor from the options. An output
// directory that cannot be used is the caller's to fix (another --out-dir,
// or removing what someone planted), so it is a usage error.
func (g *globals) interceptor() (*intercept.Interceptor, error) {
	ic, err := intercept.New(intercept.Options{OutDir: g.outDirPath(), MaxText: g.maxText, MediaThresholdKB: g.mediaKB, Shell: true})
	if err != nil {
		return nil, exitf(ExitUsage, "cannot use the output directory: %v", err)
	}
	return ic, nil
}

// validateSession checks --session and --idle-timeout; given says
// --session was on the command line (an empty name is a mistake, not a
// one-shot command).
func (g *globals) validateSession(given bool) error {
	if given && g.session == "" {
		return exitf(ExitUsage, "--session needs a name, got an empty one: give the session a name (e.g. --session dev), or leave --session out to run the command once")
	}
	if g.session == "" {
		if g.idleTimeout != 0 {
			return exitf(ExitUsage, "--idle-timeout goes with --session: it closes a session after that many minutes without a command")
		}
		return nil
	}
	if !session.ValidName(g.session) {
		return badSessionName(g.session)
	}
	if !validMinutes(g.idleTimeout) {
		return exitf(ExitUsage, "--idle-timeout must be a positive number of minutes (fractions allowed), got %v", g.idleTimeout)
	}
	return nil
}

// checkOutDir refuses an unusable output directory before the agent server
// starts answering.
func (g *globals) checkOutDir() error {
	if _, err := intercept.PrepareDir(g.outDirPath()); err != nil {
		return exitf(ExitUsage, "cannot use the output directory: %v", err)
	}
	return nil
}

// badSessionName refuses a name that cannot name a session's files, in
// 3.0's words ("Session name … is invalid"), saying which rule it breaks.
func badSessionName(name string) error {
	if len(name) > session.MaxNameLen {
		return exitf(ExitUsage, "Session name %q is invalid: it is %d bytes long, and the limit is %d (it names files on disk); choose a shorter name",
			name[:24]+"…", len(name), session.MaxNameLen)
	}
	if name == "" {
		return exitf(ExitUsage, "Session name \"\" is invalid: a session needs a name that starts with a letter or digit, e.g. dev; run-mcp sessions lists the running ones")
	}
	return exitf(ExitUsage, "Session name %q is invalid: a name starts with a letter or digit and uses only letters, digits, '.', '_' and '-' (it names files on disk)", name)
}
