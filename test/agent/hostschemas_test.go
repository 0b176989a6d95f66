package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// specTools are the specification's twelve tools of the agent server.
var specTools = []string{"call_mcp_primitive", "connect_to_mcp", "disconnect_from_mcp", "get_mcp_server_stderr",
	"get_server_notifications", "list_available_mcp_servers", "list_mcp_primitives", "mcp_server_status",
	"read_result", "reconnect_to_mcp", "subscribe_to_resource", "validate_mcp_server"}

// schemaCheckLine is one line test/hosts/schemacheck/check.mjs printed.
type schemaCheckLine struct {
	Client    string          `json:"client"`
	Tools     []string        `json:"tools"`
	Validator string          `json:"validator"`
	Tool      string          `json:"tool"`
	Error     string          `json:"error"`
	Warning   string          `json:"warning"`
	Args      json.RawMessage `json:"args"`
	Valid     *bool           `json:"valid"`
	Want      bool            `json:"want"`
	Done      bool            `json:"done"`
}

// A host that compiles tool schemas accepts every tool: the TypeScript SDK
// v1 and v2 clients list exactly the specification's twelve, and each
// inputSchema compiles, without a word logged, under Ajv's defaults (which
// throw on any format they do not know), Ajv with ajv-formats, Ajv2020's
// defaults and each SDK's own validator; and each of them judges arguments
// as run-mcp does (a connection name's rule is a pattern they apply too).
func TestToolSchemasCompileInRealHosts(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"ajv", "ajv-formats", "@modelcontextprotocol/sdk", "@modelcontextprotocol/client"} {
		_, err := targets.Entry("node_modules/" + pkg + "/package.json")
		targets.Require(t, err)
	}
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsNode(t), filepath.Join(root, "test", "hosts", "schemacheck", "check.mjs"), bin, "-o", t.TempDir())
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the schema check failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	clients, checks, done := 0, 0, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var l schemaCheckLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("the check printed a line that is not JSON: %q", sc.Text())
		}
		switch {
		case l.Client != "":
			clients++
			got := slices.Sorted(slices.Values(l.Tools))
			if !slices.Equal(got, specTools) {
				t.Errorf("%s client lists %v, want exactly the specification's twelve %v", l.Client, got, specTools)
			}
		case l.Error != "":
			t.Errorf("%s cannot compile %s's inputSchema: %s", l.Validator, l.Tool, l.Error)
		case l.Warning != "":
			t.Errorf("%s logged compiling %s's inputSchema: %s", l.Validator, l.Tool, l.Warning)
		case l.Valid != nil:
			checks++
			if *l.Valid != l.Want {
				t.Errorf("%s judges %s %s valid=%v, want %v (as run-mcp does)", l.Validator, l.Tool, l.Args, *l.Valid, l.Want)
			}
		case l.Done:
			done = true
		}
	}
	if clients != 2 || checks == 0 || !done {
		t.Errorf("the check did not run through (%d clients, %d argument checks, done %v):\n%s", clients, checks, done, fmt.Sprint(string(out)))
	}
}
