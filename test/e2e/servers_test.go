package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// clientConfigs is a machine whose clients know the demo server under
// several names: Claude Code (user and local scope in ~/.claude.json, a
// project .mcp.json), Cursor and Codex (TOML), all under a temporary HOME.
type clientConfigs struct {
	home, project, toolsDir string
	env                     []string // HOME, XDG_CONFIG_HOME and the variables the entries use
}

// secret is an env value the configs pass to the server: it must reach the
// server and never appear in anything run-mcp prints.
const secret = "sk-e2e-never-shown-4711"

func newClientConfigs(t *testing.T) clientConfigs {
	t.Helper()
	c := clientConfigs{home: t.TempDir(), project: t.TempDir(), toolsDir: t.TempDir()}
	if err := os.Mkdir(filepath.Join(c.project, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A relative --tools-file proves the entry's cwd is used.
	writeFile(t, filepath.Join(c.toolsDir, "tools.txt"), "from_cwd: A tool only the entry's working directory has.\n")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	demoEntry := `{"command": ` + q(bin) + `, "args": ["demo-server"]}`
	writeFile(t, filepath.Join(c.home, ".claude.json"), `{
  "mcpServers": {"claude-user": `+demoEntry+`},
  "projects": {`+q(c.project)+`: {"mcpServers": {"local-one": `+demoEntry+`}}}
}`)
	// Claude Code's ${VAR} and ${VAR:-default}, from run-mcp's environment.
	writeFile(t, filepath.Join(c.project, ".mcp.json"), `{"mcpServers": {
  "shared": {"command": "${RUN_MCP_E2E_BIN}", "args": ["demo-server"],
             "env": {"DEMO_TOKEN": "${RUN_MCP_E2E_SECRET}", "DEMO_MODE": "${RUN_MCP_E2E_UNSET:-fallback}"}}
}}`)
	writeFile(t, filepath.Join(c.home, ".cursor", "mcp.json"), `{
  // Cursor's copy of the same name
  "mcpServers": {"shared": `+demoEntry+`, "cursor-only": `+demoEntry+`,},
}`)
	writeFile(t, filepath.Join(c.home, ".codex", "config.toml"), "[mcp_servers.codexy]\ncommand = "+q(bin)+
		"\nargs = [\"demo-server\", \"--tools-file\", \"tools.txt\"]\ncwd = "+q(c.toolsDir)+
		"\n[mcp_servers.codexy.env]\nCODEX_TOKEN = "+q(secret)+"\n")
	c.env = []string{"HOME=" + c.home, "XDG_CONFIG_HOME=" + filepath.Join(c.home, ".config"),
		"RUN_MCP_E2E_BIN=" + bin, "RUN_MCP_E2E_SECRET=" + secret}
	return c
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// run runs run-mcp in the project directory under the temporary HOME, with
// TMPDIR=tmp (sessions of one test share it).
func (c clientConfigs) run(t *testing.T, tmp string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = c.project
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), c.env...)
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run-mcp %s: %v\n%s", strings.Join(args, " "), err, r)
	}
	// The demo's env tool answers with the value (that is how the tests see
	// it arrived); anything else run-mcp prints must never hold it.
	shown := r.stderr
	if len(args) < 2 || args[0] != "call" || args[1] != "env" {
		shown += r.stdout
	}
	if strings.Contains(shown, secret) {
		t.Fatalf("an env value from a config appeared in run-mcp's output\n%s", r)
	}
	return r
}

type serversListing struct {
	Servers []struct {
		Name    string   `json:"name"`
		Source  string   `json:"source"`
		File    string   `json:"file"`
		Command string   `json:"command"`
		EnvKeys []string `json:"env_keys"`
	} `json:"servers"`
	Errors   []any    `json:"errors"`
	Searched []string `json:"searched"`
}

func (l serversListing) names() []string {
	var out []string
	for _, s := range l.Servers {
		out = append(out, s.Source+":"+s.Name)
	}
	return out
}

// `run-mcp servers` prints what list_available_mcp_servers finds, as JSON,
// with the same filters; env values are never shown.
func TestServersLists(t *testing.T) {
	t.Parallel()
	c := newClientConfigs(t)
	tmp := t.TempDir()
	r := c.run(t, tmp, "servers")
	r.wantCode(t, 0)
	var l serversListing
	r.json(t, &l)
	want := []string{"claude-code (user):claude-user", "claude-code (local: " + c.project + "):local-one",
		"claude-code (project):shared", "cursor (user):cursor-only", "cursor (user):shared", "codex (user):codexy"}
	for _, w := range want {
		if !slices.Contains(l.names(), w) {
			t.Errorf("servers lacks %s; got %v\n%s", w, l.names(), r)
		}
	}
	for _, s := range l.Servers {
		if s.Name == "codexy" && !slices.Equal(s.EnvKeys, []string{"CODEX_TOKEN"}) {
			t.Errorf("codexy env_keys = %v, want [CODEX_TOKEN]", s.EnvKeys)
		}
	}
	if len(l.Errors) != 0 || len(l.Searched) == 0 {
		t.Errorf("errors %v (want none), searched %d path(s) (want some)\n%s", l.Errors, len(l.Searched), r)
	}

	r = c.run(t, tmp, "servers", "--filter", "CODEX")
	r.wantCode(t, 0)
	l = serversListing{}
	r.json(t, &l)
	if got := l.names(); !slices.Equal(got, []string{"codex (user):codexy"}) {
		t.Errorf("--filter CODEX: got %v\n%s", got, r)
	}

	r = c.run(t, tmp, "servers", "--file", ".mcp.json")
	r.wantCode(t, 0)
	l = serversListing{}
	r.json(t, &l)
	if got := l.names(); !slices.Equal(got, []string{"file:shared"}) {
		t.Errorf("--file .mcp.json: got %v\n%s", got, r)
	}

	r = c.run(t, tmp, "servers", "--file", "missing.json")
	r.wantCode(t, 66)
	r.wantStderr(t, "missing.json", "no such file")
}

// --server NAME launches a registered entry as its client would: its
// command, args, cwd and env (${VAR} expanded from run-mcp's environment).
func TestServerFlagLaunchesEntry(t *testing.T) {
	t.Parallel()
	c := newClientConfigs(t)
	tmp := t.TempDir()

	// Codex: cwd (the relative --tools-file is found there) and env.
	r := c.run(t, tmp, "list-tools", "--server", "codexy")
	r.wantCode(t, 0)
	if names := r.toolNames(t); !slices.Contains(names, "from_cwd") {
		t.Errorf("the entry's cwd was not used: no from_cwd tool in %v\n%s", names, r)
	}
	r = c.run(t, tmp, "call", "env", "name=CODEX_TOKEN", "--server", "codexy")
	r.wantCode(t, 0)
	if got := r.text(t); got != `CODEX_TOKEN is set: "`+secret+`"` {
		t.Errorf("the entry's env did not reach the server\n%s", r)
	}

	// Claude Code's local scope, chosen by its client name.
	r = c.run(t, tmp, "list-tools", "--server", "local-one")
	r.wantCode(t, 0)

	// .mcp.json: ${VAR} and ${VAR:-default}, picked by source.
	r = c.run(t, tmp, "call", "env", "name=DEMO_MODE", "--server", "claude-code (project):shared")
	r.wantCode(t, 0)
	if got := r.text(t); got != `DEMO_MODE is set: "fallback"` {
		t.Errorf("${VAR:-default}: got %q\n%s", got, r)
	}
	// …or by --file.
	r = c.run(t, tmp, "call", "env", "name=DEMO_TOKEN", "--server", "shared", "--file", ".mcp.json")
	r.wantCode(t, 0)
	if got := r.text(t); got != `DEMO_TOKEN is set: "`+secret+`"` {
		t.Errorf("${VAR} from run-mcp's environment did not reach the server\n%s", r)
	}
}

// A name several files define, or none, is a usage error that says which
// files and how to pick, or what is registered.
func TestServerFlagRefusals(t *testing.T) {
	t.Parallel()
	c := newClientConfigs(t)
	tmp := t.TempDir()

	r := c.run(t, tmp, "list-tools", "--server", "shared")
	r.wantCode(t, 64)
	r.wantNoStdout(t)
	r.wantStderr(t, `"shared" is defined 2 times`, filepath.Join(c.project, ".mcp.json"), filepath.Join(c.home, ".cursor", "mcp.json"),
		`--server 'claude-code (project):shared'`, `--server 'cursor (user):shared'`, "--server shared --file PATH")

	r = c.run(t, tmp, "list-tools", "--server", "codexx")
	r.wantCode(t, 64)
	r.wantStderr(t, `no MCP server named "codexx"`, `Did you mean "codexy"?`, "claude-user, codexy", "run-mcp servers lists them")

	r = c.run(t, tmp, "list-tools", "--server", "codexy", "--", bin, "demo-server")
	r.wantCode(t, 64)
	r.wantStderr(t, "--server codexy names the server to run, and so does the target command")

	// A variable the entry needs and run-mcp's environment lacks.
	c.env = slices.DeleteFunc(slices.Clone(c.env), func(kv string) bool { return strings.HasPrefix(kv, "RUN_MCP_E2E_SECRET=") })
	r = c.run(t, tmp, "list-tools", "--server", "claude-code (project):shared")
	r.wantCode(t, 64)
	r.wantStderr(t, "${RUN_MCP_E2E_SECRET}", "not set in run-mcp's environment", "export RUN_MCP_E2E_SECRET")
}

// With --session the session keeps the resolved command: later commands
// name only the session, and sessions shows what runs.
func TestServerFlagWithSession(t *testing.T) {
	t.Parallel()
	c := newClientConfigs(t)
	tmp := t.TempDir()
	t.Cleanup(func() { c.run(t, tmp, "close-session", "fromcfg") })

	r := c.run(t, tmp, "list-tools", "--server", "codexy", "--session", "fromcfg")
	r.wantCode(t, 0)
	if names := r.toolNames(t); !slices.Contains(names, "from_cwd") {
		t.Errorf("session: no from_cwd tool in %v\n%s", names, r)
	}
	r = c.run(t, tmp, "call", "env", "name=CODEX_TOKEN", "--session", "fromcfg")
	r.wantCode(t, 0)
	if got := r.text(t); got != `CODEX_TOKEN is set: "`+secret+`"` {
		t.Errorf("the session's server lacks the entry's env\n%s", r)
	}
	// The same --server again attaches to it.
	r = c.run(t, tmp, "call", "echo", "message=again", "--server", "codexy", "--session", "fromcfg")
	r.wantCode(t, 0)
	r = c.run(t, tmp, "sessions")
	r.wantCode(t, 0)
	var rows []struct {
		Name    string   `json:"name"`
		Command string   `json:"command"`
		Cwd     string   `json:"cwd"`
		EnvKeys []string `json:"env_keys"`
	}
	r.json(t, &rows)
	i := slices.IndexFunc(rows, func(s struct {
		Name    string   `json:"name"`
		Command string   `json:"command"`
		Cwd     string   `json:"cwd"`
		EnvKeys []string `json:"env_keys"`
	}) bool {
		return s.Name == "fromcfg"
	})
	if i < 0 {
		t.Fatalf("sessions lacks fromcfg\n%s", r)
	}
	if row := rows[i]; !strings.Contains(row.Command, "demo-server --tools-file tools.txt") || row.Cwd != c.toolsDir || !slices.Contains(row.EnvKeys, "CODEX_TOKEN") {
		t.Errorf("the session does not remember the resolved entry: %+v\n%s", row, r)
	}
}
