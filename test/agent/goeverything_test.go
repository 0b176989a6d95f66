package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// The "everything" example servers of mcp-go v1.2.1 and go-sdk v1.8.0, both
// dual era, built from the module proxy at the versions pinned in
// test/realservers/go.mod (its tool directives).
const (
	mcpGoEverything = "github.com/mark3labs/mcp-go/examples/everything"
	goSDKEverything = "github.com/modelcontextprotocol/go-sdk/examples/server/everything"
)

var buildRealServers = sync.OnceValues(func() (map[string]string, error) {
	root, err := targets.RepoRoot()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, pkg := range map[string]string{"mcpgo-everything": mcpGoEverything, "gosdk-everything": goSDKEverything} {
		path := filepath.Join(buildDir, name)
		cmd := exec.Command("go", "build", "-o", path, pkg)
		cmd.Dir = filepath.Join(root, "test", "realservers")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s in test/realservers (it needs the module proxy once): %w\n%s", pkg, err, msg)
		}
		out[name] = path
	}
	return out, nil
})

func realServer(t *testing.T, name string) string {
	t.Helper()
	servers, err := buildRealServers()
	targets.Require(t, err)
	return servers[name]
}

// mcp-go's everything server under a 2026-07-28 host, in each era of the
// target: results (text, numbers, an image saved to disk) and progress.
func TestMCPGoEverythingUnderModernHost(t *testing.T) {
	t.Parallel()
	server := realServer(t, "mcpgo-everything")
	for _, proto := range []string{"legacy", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			run := runTSHost(t, nil,
				tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": server, "protocol": proto}},
				callStep("echo", map[string]any{"message": "hi"}),
				callStep("add", map[string]any{"a": 2, "b": 3}),
				callStep("longRunningOperation", map[string]any{"duration": 0.2, "steps": 2}, "include_metadata", true),
				callStep("getTinyImage", nil),
			)
			wantContains(t, "connect", run.steps[0], "Server: example-servers/everything 1.0.0", "Protocol: "+map[string]string{"legacy": "2025-11-25 (legacy era)", "2026-07-28": "2026-07-28 (modern era"}[proto])
			if run.steps[1] != "Echo: hi" {
				t.Errorf("echo: %q", run.steps[1])
			}
			wantContains(t, "add", run.steps[2], "is 5.000000")
			wantContains(t, "longRunningOperation", run.steps[3], `Progress: 2 update(s) streamed; last 2/2`, "Long running operation completed")
			wantContains(t, "getTinyImage", run.steps[4], "[Image saved to ")
		})
	}
}

// go-sdk's everything server under a 2026-07-28 host. Over the legacy
// handshake its form and its sampling request reach the host and are
// answered; in 2026-07-28 the server itself refuses to send them (its example
// uses server-to-client requests, which that era has not), and says so.
func TestGoSDKEverythingUnderModernHost(t *testing.T) {
	t.Parallel()
	server := realServer(t, "gosdk-everything")
	steps := []tsStep{
		{Tool: "connect_to_mcp", Arguments: map[string]any{"command": server}},
		callStep("greet", map[string]any{"name": "Ada"}),
		callStep("elicit (form)", nil, "include_metadata", true),
		callStep("sample", nil),
	}
	t.Run("legacy", func(t *testing.T) {
		t.Parallel()
		run := runTSHost(t, nil, steps...)
		if run.steps[1] != "Hi Ada" {
			t.Errorf("greet: %q", run.steps[1])
		}
		wantContains(t, "elicit (form)", run.steps[2], `Input round 1: elicitation "provide a random string": accepted (changed from the defaults: random)`, "from the ts-v2 host")
		if len(run.elicitation) != 1 || run.elicitation[0] != "provide a random string" {
			t.Errorf("the host was shown %q", run.elicitation)
		}
		wantContains(t, "sample", run.steps[3], "the v2 model says hello")
		if run.sampling != 1 {
			t.Errorf("the host's model was asked %d time(s), want 1", run.sampling)
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		modern := append([]tsStep(nil), steps...)
		modern[0] = tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": server, "protocol": "2026-07-28"}}
		run := runTSHost(t, nil, modern...)
		wantContains(t, "connect", run.steps[0], "Protocol: 2026-07-28 (modern era")
		if run.steps[1] != "Hi Ada" {
			t.Errorf("greet: %q", run.steps[1])
		}
		wantContains(t, "elicit (form)", run.steps[2], `"elicitation/create" cannot be sent while serving a request on protocol version 2026-07-28`)
		wantContains(t, "sample", run.steps[3], `"sampling/createMessage" cannot be sent while serving a request on protocol version 2026-07-28`)
		if len(run.elicitation) != 0 || run.sampling != 0 {
			t.Errorf("the host was asked something the server never sent: %q, %d sampling", run.elicitation, run.sampling)
		}
	})
}
