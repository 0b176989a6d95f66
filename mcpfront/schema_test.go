package mcpfront

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestClosedSchema(t *testing.T) {
	s := object([]string{"command"}, schema{"command": str("x"), "args": strList("y"), "timeout_ms": integer("z"),
		"env": strMap("e"), "include": enumList("i", "tools", "prompts")})
	cases := map[string]struct {
		args map[string]any
		want string
	}{
		"ok":          {map[string]any{"command": "node", "args": []any{"a"}, "env": map[string]any{"K": "v"}}, ""},
		"missing":     {map[string]any{}, "requires command"},
		"misspelled":  {map[string]any{"comand": "node"}, `does not take "comand" (did you mean "command"?)`},
		"unknown":     {map[string]any{"command": "n", "arg": []any{}}, `does not take "arg" (did you mean "args"?)`},
		"wrong type":  {map[string]any{"command": "n", "timeout_ms": "5s"}, "timeout_ms must be an integer, got a string"},
		"fraction":    {map[string]any{"command": "n", "timeout_ms": 1.5}, "timeout_ms must be an integer"},
		"bad enum":    {map[string]any{"command": "n", "include": []any{"tool"}}, "include[0] must be one of tools, prompts"},
		"env non-str": {map[string]any{"command": "n", "env": map[string]any{"K": 1.0}}, "env.K must be a string"},
	}
	for name, c := range cases {
		err := checkArgs("connect_to_mcp", s, c.args)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected %v", name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT containing %q", name, err, c.want)
		}
	}
}
