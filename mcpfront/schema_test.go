package mcpfront

import (
	"encoding/json"
	"strings"
	"testing"
)

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
		// The host's arguments are decoded with their literals (json.Number).
		"literal int":      {map[string]any{"command": "n", "timeout_ms": json.Number("5000")}, ""},
		"literal fraction": {map[string]any{"command": "n", "timeout_ms": json.Number("1.5")}, "timeout_ms must be an integer, got the number 1.5"},
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

func TestEnvMapRefusesBadKeysAndNeverQuotesValues(t *testing.T) {
	s := object(nil, schema{"env": envMap("e"), "auto": object(nil, schema{"env": envMap("e")})})
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"dash":        {map[string]any{"env": map[string]any{"K-1": "S3CR3T-1"}}, `connect_to_mcp env: "K-1" is not a valid environment variable name`},
		"empty":       {map[string]any{"env": map[string]any{"": "S3CR3T-2"}}, "name is empty"},
		"equals":      {map[string]any{"env": map[string]any{"A=B": "S3CR3T-3"}}, `"A=B" is not a valid`},
		"nul":         {map[string]any{"env": map[string]any{"A\x00": "S3CR3T-4"}}, `"A\x00" is not a valid`},
		"nested":      {map[string]any{"auto": map[string]any{"env": map[string]any{"9X": "S3CR3T-5"}}}, `connect_to_mcp auto.env: "9X"`},
		"number":      {map[string]any{"env": map[string]any{"K": 31337.0}}, "env.K must be a string, got a number (the value is not shown)"},
		"long string": {map[string]any{"env": map[string]any{"K": []any{"S3CR3T-6"}}}, "env.K must be a string, got an array"},
	} {
		err := checkArgs("connect_to_mcp", s, c.args)
		if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT containing %q", name, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "S3CR3T") || strings.Contains(err.Error(), "31337") {
			t.Errorf("%s: the error quotes a value: %v", name, err)
		}
	}
	if err := checkArgs("connect_to_mcp", s, map[string]any{"env": map[string]any{"API_KEY": "v", "_x1": "", "N": nil}}); err != nil {
		t.Errorf("valid env refused: %v", err)
	}
}

func TestHostArgumentsKeepTheirLiterals(t *testing.T) {
	raw := json.RawMessage(`{"type":"tool","arguments":{"n":12345678901234567890}}`)
	args, err := decodeArgs(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(args); string(got) != `{"arguments":{"n":12345678901234567890},"type":"tool"}` {
		t.Errorf("arguments re-encode as %s", got)
	}
	if got := rawArgsOf(raw); string(got) != `{"n":12345678901234567890}` {
		t.Errorf("the tool's arguments reach the target as %s", got)
	}
	if getInt(map[string]any{"n": json.Number("42")}, "n", 0) != 42 {
		t.Error("getInt does not read a literal")
	}
}
