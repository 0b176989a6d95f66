package actors

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/wire"
)

// With pagerEnv set, the test binary is a legacy MCP server whose tools/list
// answers as the mode says: "pages" in three pages (the second holds an
// entry mcp-go's type cannot hold), "loop" with a cursor that comes back,
// "error" with a JSON-RPC error.
const pagerEnv = "RUN_MCP_ACTORS_TEST_PAGER"

func servePager(mode string) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-06-18","serverInfo":{"name":"pager","version":"1"},"capabilities":{"tools":{}}}`
		case "tools/list":
			switch {
			case mode == "error":
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"the tool registry is down"}}`+"\n", req.ID)
				continue
			case mode == "loop":
				result = `{"tools":[{"name":"again","inputSchema":{"type":"object"}}],"nextCursor":"same"}`
			case req.Params.Cursor == "":
				result = `{"tools":[{"name":"one","inputSchema":{"type":"object","required":["a"]}}],"nextCursor":"p2"}`
			case req.Params.Cursor == "p2":
				result = `{"tools":[{"name":"odd","description":5,"inputSchema":{"type":"object"}}],"nextCursor":"p3"}`
			default:
				result = `{"tools":[{"name":"three","inputSchema":{"type":"object","x-big":12345678901234567890}}],"nextCursor":null}`
			}
		default:
			result = `{}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}

func pagerConfig(t *testing.T, mode string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Spec: wire.Spec{Command: exe, Env: map[string]string{pagerEnv: mode}}}
}

// Over stdio the tools are listed past mcp-go's typed decode: every page,
// each entry as sent (even one mcp-go's type cannot hold), and the typed
// list for run-mcp's checks decoded from them when asked.
func TestRawToolListing(t *testing.T) {
	c := connectStuck(t, Options{}, pagerConfig(t, "pages"))
	raw, err := c.List(bounded(t), "tools")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range raw {
		got = append(got, string(r))
	}
	want := []string{`{"name":"one","inputSchema":{"type":"object","required":["a"]}}`,
		`{"name":"odd","description":5,"inputSchema":{"type":"object"}}`,
		`{"name":"three","inputSchema":{"type":"object","x-big":12345678901234567890}}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("listed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tools, err := c.Tools(bounded(t), false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "one,odd,three" {
		t.Errorf("typed names %v", names)
	}
	if set := c.tools.Load(); set == nil {
		t.Fatal("the listing was not cached")
	} else if req, ok := set.requiredOf("one"); !ok || strings.Join(req, ",") != "a" {
		t.Errorf("required of one: %v, %v", req, ok)
	}
}

func TestRawToolListingFailures(t *testing.T) {
	for mode, want := range map[string]string{
		"loop":  `tools/list: the server's tools listing repeats the cursor "same": it would never end`,
		"error": "tools/list: internal error: the tool registry is down",
	} {
		c := connectStuck(t, Options{}, pagerConfig(t, mode))
		_, err := c.List(bounded(t), "tools")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q in the error, got %v", mode, want, err)
		}
	}
}
