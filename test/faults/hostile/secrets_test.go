//go:build !windows

package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secret = `sk-sec\ret-31337`

// A config file whose env value has an invalid escape. Before: the JSONC
// error in list_available_mcp_servers quoted the whole string, secret and
// all. After: file, line, column and the kind of mistake only.
func TestConfigSecretInABrokenEscapeIsNotQuoted(t *testing.T) {
	tmp := t.TempDir()
	cfg := filepath.Join(tmp, "mcp.json")
	body := "{\n  \"mcpServers\": {\n    \"api\": {\"command\": \"node\", \"env\": {\"K\": \"sk-\\q123-31337\"}}\n  }\n}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHost(t, tmp)
	text, _ := h.call("list_available_mcp_servers", map[string]any{"file": cfg})
	wantAbsent(t, "list_available_mcp_servers", text, "sk-", "q123", "31337")
	for _, want := range []string{cfg, "line 3, column 45", "not valid JSON"} {
		if !strings.Contains(text, want) {
			t.Errorf("the reply does not say %q:\n%s", want, text)
		}
	}
}

// --env tokens with a key that cannot be an environment variable. Before:
// "--env \"=sk-…\" must be KEY=VALUE" repeated the whole token, and keys
// like K-1 were passed on. After: exit 64 naming the key, never the value.
func TestBadEnvKeysAreRefusedWithoutTheirValues(t *testing.T) {
	tmp := t.TempDir()
	marker := filepath.Join(t.TempDir(), "spawned")
	for token, says := range map[string]string{
		"K-1=" + secret: `"K-1" is not a valid environment variable name`,
		"=" + secret:    "name is empty",
		"9K=" + secret:  `"9K" is not a valid`,
		secret:          "not shown: it may be a secret",
	} {
		r := run(t, tmp, append([]string{"call", "echo", "message=hi", "--env", token}, spawnMarked(marker)...)...)
		r.want(t, 64, "--env expects KEY=VALUE", says)
		wantAbsent(t, "stderr for --env "+token, r.stderr+r.stdout, "sk-sec", "31337")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a target was spawned despite a bad --env")
	}
	h := startHost(t, tmp)
	badEnv := map[string]any{"K-1": secret, "OK": secret}
	for tool, args := range map[string]map[string]any{
		"connect_to_mcp":      {"command": bin, "args": []any{"demo-server"}, "env": badEnv},
		"validate_mcp_server": {"command": bin, "args": []any{"demo-server"}, "env": badEnv},
		"call_mcp_primitive": {"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"},
			"auto_connect": map[string]any{"command": bin, "args": []any{"demo-server"}, "env": badEnv}},
	} {
		text, isErr := h.call(tool, args)
		if !isErr || !strings.Contains(text, "INVALID_ARGUMENT") || !strings.Contains(text, `"K-1" is not a valid environment variable name`) {
			t.Errorf("%s with env key K-1: isError %v, %q; want INVALID_ARGUMENT naming the key", tool, isErr, text)
		}
		wantAbsent(t, tool+" reply", text, "sk-sec", "31337")
	}
}
