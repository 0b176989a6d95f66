package npm

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// prefixVar names the npm prefix CI installed dist/npm's tarballs into.
const prefixVar = "RUN_MCP_NPM_PREFIX"

// installed is the run-mcp that `npm install -g --prefix` put on the prefix's PATH.
func installed(t *testing.T) string {
	t.Helper()
	prefix := os.Getenv(prefixVar)
	if prefix == "" {
		t.Skipf("skipping: %s is not set; .ci/run sets it after `make npm` and `npm install -g --prefix <dir> dist/npm/*.tgz`", prefixVar)
	}
	p := filepath.Join(prefix, "bin", "run-mcp")
	if runtime.GOOS == "windows" {
		p = filepath.Join(prefix, "run-mcp.cmd")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s=%s but there is no run-mcp in it: %v", prefixVar, prefix, err)
	}
	return p
}

// npm ran the postinstall (as it does by default), so the run-mcp it put on
// PATH is the binary itself: no Node start in front.
func TestInstalledRunMCPIsTheBinary(t *testing.T) {
	runMCP := installed(t)
	if runtime.GOOS == "windows" {
		t.Skip("on Windows npm's .cmd shim runs the Node launcher, which stays")
	}
	b, err := os.ReadFile(runMCP)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(string(b), "#!") {
		t.Errorf("%s is the Node launcher: the postinstall (npm/run-mcp/install.js) did not put the binary in its place", runMCP)
	}
	if o := runCmd(t, nil, runMCP, "list-tools", "--", runMCP, "demo-server"); o.code != 0 || !strings.Contains(o.stdout, `"name": "echo"`) {
		t.Errorf("the installed run-mcp's demo server: exit %d\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
}

// An agent that registered the npm-installed run-mcp talks to it over stdio
// exactly as to the binary: connect to a server, call its tool.
func TestInstalledRunMCPServesAnAgent(t *testing.T) {
	runMCP := installed(t)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c, err := client.NewStdioMCPClient(runMCP, nil, "-o", t.TempDir())
	if err != nil {
		t.Fatalf("start %s: %v", runMCP, err)
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "npm-install-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize through the npm launcher: %v", err)
	}
	if res.ServerInfo.Name != "run-mcp" {
		t.Errorf("serverInfo = %+v, want run-mcp", res.ServerInfo)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var text strings.Builder
		for _, ct := range r.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if r.IsError {
			t.Fatalf("%s failed: %s", name, text.String())
		}
		return text.String()
	}
	// The demo server of the installed binary itself, started through the launcher.
	if got := call("connect_to_mcp", map[string]any{"command": runMCP, "args": []any{"demo-server"}}); !strings.Contains(got, "run-mcp-demo") {
		t.Errorf("connect_to_mcp said:\n%s\nwant it connected to run-mcp-demo", got)
	}
	got := call("call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "installed by npm"}})
	if got != "echo: installed by npm" {
		t.Errorf("echo through the npm-installed run-mcp = %q, want %q", got, "echo: installed by npm")
	}
}
