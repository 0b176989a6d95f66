package e2e

import (
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

func TestHTTPTarget(t *testing.T) {
	url := targets.StartHTTPDemo(t, bin)
	r := run(t, "call", "echo", "message=over-http", "--raw", "--", url)
	if r.code != 0 || !strings.Contains(r.stdout, "echo: over-http") {
		t.Fatalf("call over HTTP: %s", r)
	}
	if !strings.Contains(r.stderr, "no stderr, no exit code and no stdout-noise check") {
		t.Errorf("an HTTP target must say what it cannot give:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, `"stderr_unavailable"`) {
		t.Errorf("--raw over HTTP must say why stderr is empty:\n%s", r.stdout)
	}
	r = run(t, "list-tools", "--", "http://127.0.0.1:1/mcp")
	if r.code != 69 || !strings.Contains(r.stderr, "Failed to connect") {
		t.Errorf("an unreachable URL must exit 69 with the reason:\n%s", r)
	}
}

// startHTTPDemo is the demo server over Streamable HTTP, stopped when the
// test ends.
func startHTTPDemo(t *testing.T) string { return targets.StartHTTPDemo(t, bin) }

// --env cannot reach a server at a URL: it is refused with why, not
// dropped.
func TestHTTPTargetRefusesEnv(t *testing.T) {
	t.Parallel()
	r := run(t, "list-tools", "--env", "API_KEY=sk-not-shown", "--", "http://127.0.0.1:1/mcp")
	r.wantCode(t, 64)
	r.wantStderr(t, "--env API_KEY cannot reach an HTTP target", "a server at a URL is already running with its own")
	if strings.Contains(r.stderr, "sk-not-shown") || strings.Contains(r.stderr, "Connecting") {
		t.Errorf("the refusal must show no value and reach nothing\n%s", r)
	}
}

// Static credentials: --header and --bearer-env reach an HTTP target and
// are never shown; a server run-mcp starts is told to use --env.
func TestStaticCredentials(t *testing.T) {
	t.Parallel()
	url := startHTTPDemo(t)
	r := runWith(t, t.TempDir(), []string{"MY_TOKEN=tok-never-shown"}, "list-tools", "--header", "X-Api-Key: sk-never-shown", "--bearer-env", "MY_TOKEN", "--", url)
	r.wantCode(t, 0)
	r = run(t, "list-tools", "--header", "X-Api-Key: sk-never-shown", "--", bin, "demo-server")
	r.wantCode(t, 64)
	r.wantStderr(t, "--header and --bearer-env (X-Api-Key) reach an HTTP target only", "--env KEY=VALUE")
	r2 := run(t, "list-tools", "--header", "sk-never-shown", "--", url)
	r2.wantCode(t, 64)
	r3 := run(t, "list-tools", "--bearer-env", "UNSET_VARIABLE_FOR_RUN_MCP", "--", url)
	r3.wantCode(t, 64)
	r3.wantStderr(t, "--bearer-env UNSET_VARIABLE_FOR_RUN_MCP: the variable is not set")
	for _, x := range []result{r, r2, r3} {
		if strings.Contains(x.stderr+x.stdout, "never-shown") {
			t.Errorf("a credential reached the output:\n%s", x)
		}
	}
}
