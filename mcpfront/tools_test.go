package mcpfront

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/wire"
)

// The specification's agent server: exactly these twelve tools.
var specTools = []string{"call_mcp_primitive", "connect_to_mcp", "disconnect_from_mcp", "get_mcp_server_stderr",
	"get_server_notifications", "list_available_mcp_servers", "list_mcp_primitives", "mcp_server_status",
	"read_result", "reconnect_to_mcp", "subscribe_to_resource", "validate_mcp_server"}

func TestTheToolsAreTheSpecificationsTwelve(t *testing.T) {
	f := &front{}
	if got := f.toolNames(); !slices.Equal(got, specTools) {
		t.Errorf("tools = %v, want the specification's twelve %v", got, specTools)
	}
}

// standardKeywords are the JSON Schema keywords a tool's inputSchema may
// use: those every validator a host runs knows (draft-07 and 2020-12).
// "format" is not among them: Ajv's defaults throw on any format they do
// not know, and a host then rejects the tool.
var standardKeywords = map[string]bool{"type": true, "description": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "enum": true, "minimum": true, "minLength": true, "pattern": true,
	"propertyNames": true, "anyOf": true}

func TestSchemasUseOnlyStandardKeywords(t *testing.T) {
	f := &front{}
	for _, d := range f.toolDefs() {
		walkSchema(t, d.name, d.schema, func(path string, s schema) {
			for k := range s {
				if !standardKeywords[k] {
					t.Errorf("%s %s: keyword %q is not one every host's validator knows", d.name, path, k)
				}
			}
			if p, ok := s["pattern"].(string); ok && p != wire.EnvKeyPattern && p != wire.HeaderNamePattern {
				if _, known := ruleOf(p); !known {
					t.Errorf("%s %s: pattern %q has no rule, so run-mcp does not check it", d.name, path, p)
				}
			}
		})
	}
}

// walkSchema calls visit on s and every schema inside it.
func walkSchema(t *testing.T, tool string, s schema, visit func(path string, s schema)) {
	t.Helper()
	var walk func(path string, v any)
	walk = func(path string, v any) {
		s, ok := v.(schema)
		if !ok {
			return
		}
		visit(path, s)
		if props, ok := s["properties"].(schema); ok {
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				walk(path+"."+n, props[n])
			}
		}
		for _, k := range []string{"items", "additionalProperties", "propertyNames"} {
			walk(path+"/"+k, s[k])
		}
		if alts, ok := s["anyOf"].([]any); ok {
			for i, a := range alts {
				walk(fmt.Sprintf("%s/anyOf[%d]", path, i), a)
			}
		}
	}
	walk(tool, s)
}

// A rule's pattern (what a host's validator applies) and its Go check
// (what run-mcp applies) give the same answers.
func TestRulesAgreeWithTheirPatterns(t *testing.T) {
	samples := []string{"", "a", "default", "api-2", "a b", "dé", "名前", "a\x1b[31mb", "x\ny", "\x00", "a\x7f", "a\u0085", "a\u009f", "a\u00a0",
		"file:///home/me", "file://", "https://example.com", "/tmp/project", "FILE:///x"}
	for _, r := range []rule{connNameRule, fileURIRule} {
		re := regexp.MustCompile(r.pattern)
		for _, s := range samples {
			if matches, passes := re.MatchString(s), r.check(s) == nil; matches != passes {
				t.Errorf("rule %s on %q: the pattern says %v, the check %v", r.pattern, s, matches, passes)
			}
		}
	}
}

// The patterns survive the trip to the host: JSON-encoded and read back,
// they are what Go's regexp was given (ECMA-262 reads \xHH alike).
func TestRulePatternsEncodeAsWritten(t *testing.T) {
	for _, r := range []rule{connNameRule, fileURIRule} {
		b, _ := json.Marshal(schema{"pattern": r.pattern})
		var back map[string]string
		if err := json.Unmarshal(b, &back); err != nil || back["pattern"] != r.pattern {
			t.Errorf("pattern %q reads back as %q (%v)", r.pattern, back["pattern"], err)
		}
		if strings.ContainsAny(r.pattern, "\x00\x1f\x7f") {
			t.Errorf("pattern %q holds a raw control character; write it as an escape", r.pattern)
		}
	}
}

func TestStringArgumentRules(t *testing.T) {
	f := &front{}
	defs := map[string]schema{}
	for _, d := range f.toolDefs() {
		defs[d.name] = d.schema
	}
	for name, c := range map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"empty connection name":   {"connect_to_mcp", map[string]any{"command": "x", "name": ""}, "name must not be empty"},
		"control in name":         {"connect_to_mcp", map[string]any{"command": "x", "name": "a\x1bb"}, "name must not contain control characters"},
		"empty connection":        {"mcp_server_status", map[string]any{"connection": ""}, "connection must not be empty"},
		"empty tool name":         {"call_mcp_primitive", map[string]any{"type": "tool", "name": ""}, "name must not be empty"},
		"lines 0":                 {"get_mcp_server_stderr", map[string]any{"lines": json.Number("0")}, "lines must be 1 or more, got the number 0"},
		"root not a file URI":     {"connect_to_mcp", map[string]any{"command": "x", "roots": []any{map[string]any{"uri": "/tmp"}}}, "roots[0].uri must be a file:// URI"},
		"empty task id in status": {"mcp_server_status", map[string]any{"task": ""}, "task must not be empty"},
		"bad type":                {"call_mcp_primitive", map[string]any{"type": "job", "name": "x"}, "type must be one of tool, resource, prompt, task"},
	} {
		err := checkArgs(c.tool, defs[c.tool], c.args)
		if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT containing %q", name, err, c.want)
		}
	}
	for name, args := range map[string]map[string]any{
		"a name":      {"command": "x", "name": "api"},
		"a file root": {"command": "x", "roots": []any{map[string]any{"uri": "file:///tmp"}}},
	} {
		if err := checkArgs("connect_to_mcp", defs["connect_to_mcp"], args); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

func TestPrimitiveArgumentCombinations(t *testing.T) {
	for name, c := range map[string]struct {
		args map[string]any
		want string
	}{
		"arguments and args": {map[string]any{"type": "tool", "name": "x", "arguments": map[string]any{}, "args": map[string]any{}}, "arguments or its alias args, not both"},
		"task on a prompt":   {map[string]any{"type": "prompt", "name": "x", "task": true}, "task needs type tool"},
		"task on a task":     {map[string]any{"type": "task", "name": "t1", "task": true}, "type task already names one"},
		"cancel on a tool":   {map[string]any{"type": "tool", "name": "x", "cancel": true}, "cancel needs type task"},
		"arguments of task":  {map[string]any{"type": "task", "name": "t1", "arguments": map[string]any{"a": 1.0}}, "type task takes no arguments"},
	} {
		task, err := taskArg(c.args)
		if err == nil {
			err = checkPrimitiveArgs(getStr(c.args, "type"), c.args, task)
		}
		if err == nil || !strings.HasPrefix(err.Error(), "INVALID_ARGUMENT: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want INVALID_ARGUMENT containing %q", name, err, c.want)
		}
	}
	if err := checkPrimitiveArgs("task", map[string]any{"type": "task", "name": "t1", "cancel": true}, nil); err != nil {
		t.Errorf("cancel of a task refused: %v", err)
	}
}
