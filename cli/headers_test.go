package cli

import (
	"strings"
	"testing"
)

// --header and --bearer-env: values reach the map, and no error quotes one.
func TestHeadersAreParsedAndNeverQuoted(t *testing.T) {
	g := newGlobals()
	g.headers = []string{"x-api-key:  sk-1 ", "X-Other: a:b"}
	t.Setenv("RUN_MCP_TEST_TOKEN", " tok-2 ")
	g.bearerEnv = "RUN_MCP_TEST_TOKEN"
	h, err := g.parseHeaders()
	if err != nil || h["X-Api-Key"] != "sk-1" || h["X-Other"] != "a:b" || h["Authorization"] != "Bearer tok-2" {
		t.Fatalf("got %v, %v", h, err)
	}
	for _, bad := range [][]string{{"sk-secret-value"}, {"bad name: sk-secret-value"}, {"X: sk-secret-value\r\nInjected: 1"},
		{"X: sk-secret-value", "x: sk-secret-value"}, {"Authorization: sk-secret-value"}} {
		g := newGlobals()
		g.headers, g.bearerEnv = bad, ""
		if bad[0] == "Authorization: sk-secret-value" {
			g.bearerEnv = "RUN_MCP_TEST_TOKEN"
		}
		_, err := g.parseHeaders()
		if err == nil || strings.Contains(err.Error(), "sk-secret-value") || CodeOf(err) != ExitUsage {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// $BROWSER is a list of commands separated as PATH is; %s stands for the
// URL, else it is the last word; the first command found is used.
func TestBrowserCommandLine(t *testing.T) {
	if _, err := startBrowser("no-such-browser-for-run-mcp", "http://x"); err == nil || !strings.Contains(err.Error(), "no-such-browser-for-run-mcp") {
		t.Errorf("a missing browser: %v", err)
	}
	if _, err := startBrowser("", "http://x"); err == nil {
		t.Error("an empty $BROWSER names no command")
	}
}
