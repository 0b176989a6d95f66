package configscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func reflectEqual(a, b Entry) bool { return reflect.DeepEqual(a, b) }

func TestEntryProblems(t *testing.T) {
	cases := map[string]string{
		`"npx my-server"`:                  "the definition is a string, not an object",
		`{}`:                               "no command and no url",
		`{"command": ""}`:                  "command is empty",
		`{"command": 42}`:                  "command is a number, not a string",
		`{"type": "http", "command": "x"}`: "type is http but there is no url",
		`{"type": "stdio", "url": "http://h/mcp"}`: "type is stdio but there is no command",
		`{"type": "websocket", "url": "ws://h"}`:   `type "websocket" is not one of stdio, http or sse`,
		`{"command": "x", "args": "--flag"}`:       "args is a string, not an array of strings",
		`{"command": "x", "args": ["--port", 80]}`: "args[1] is a number, not a string; quote it",
		`{"command": "x", "env": ["A=1"]}`:         "env is an array, not an object",
		`{"command": "x", "headers": "Bearer"}`:    "headers is a string, not an object",
		`{"command": "x", "cwd": false}`:           "cwd is a boolean, not a string",
		`{"command": {"args": []}}`:                `command has no "path"`,
		`{"url": 8080}`:                            "url is a number, not a string",
		`{"source": "extension", "settings": {}}`:  "provided by a Zed extension",
	}
	for def, want := range cases {
		var v any
		if err := json.Unmarshal([]byte(def), &v); err != nil {
			t.Fatal(err)
		}
		e := entryFromValue(Entry{}, "x", v, "http")
		if !strings.Contains(e.Problem, want) {
			t.Errorf("%s: problem %q, want it to contain %q", def, e.Problem, want)
		}
	}
}

func TestEntryTypes(t *testing.T) {
	cases := []struct {
		def, remote, want string
	}{
		{`{"command": "x"}`, "http", "stdio"},
		{`{"type": "local", "command": "x"}`, "http", "stdio"},
		{`{"url": "http://h"}`, "http", "http"},
		{`{"url": "http://h"}`, "sse", "sse"},
		{`{"httpUrl": "http://h"}`, "sse", "http"},
		{`{"serverUrl": "http://h"}`, "http", "http"},
		{`{"type": "streamable-http", "url": "http://h"}`, "sse", "http"},
		{`{"type": "streamableHttp", "url": "http://h"}`, "sse", "http"},
		{`{"transportType": "sse", "url": "http://h"}`, "http", "sse"},
		{`{"type": "SSE", "url": "http://h"}`, "http", "sse"},
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.def), &v); err != nil {
			t.Fatal(err)
		}
		if e := entryFromValue(Entry{}, "x", v, c.remote); e.Type != c.want || e.Problem != "" {
			t.Errorf("%s (remote %s): type %q problem %q, want %q", c.def, c.remote, e.Type, e.Problem, c.want)
		}
	}
}
