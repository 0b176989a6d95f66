package mcpfront

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/didyoumean"
	"github.com/run-mcp/run-mcp/wire"
)

// schema is a JSON Schema as a plain map: it is both what the host sees in
// tools/list and what checks the arguments, so the two cannot drift.
type schema = map[string]any

func object(required []string, props schema) schema {
	s := schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) schema     { return schema{"type": "string", "description": desc} }
func integer(desc string) schema { return schema{"type": "integer", "description": desc} }

// count is an integer that cannot be negative: a negative value is
// INVALID_ARGUMENT, never read as the default.
func count(desc string) schema {
	return schema{"type": "integer", "minimum": 0, "description": desc}
}

// positive is an integer of 1 or more: 0 is INVALID_ARGUMENT, since it
// would ask for nothing (leave the argument out for the default).
func positive(desc string) schema {
	return schema{"type": "integer", "minimum": 1, "description": desc}
}

// nonEmpty is a string that must have at least one character: an empty
// one is INVALID_ARGUMENT, never read as "not given".
func nonEmpty(desc string) schema {
	return schema{"type": "string", "minLength": 1, "description": desc}
}

// withRule states r in s as a standard pattern, so a host's validator
// applies the same rule run-mcp checks.
func withRule(s schema, r rule) schema {
	s["pattern"] = r.pattern
	return s
}
func boolean(desc string) schema { return schema{"type": "boolean", "description": desc} }
func strList(desc string) schema {
	return schema{"type": "array", "items": schema{"type": "string"}, "description": desc}
}
func freeObject(desc string) schema { return schema{"type": "object", "description": desc} }
func strMap(desc string) schema {
	return schema{"type": "object", "additionalProperties": schema{"type": "string"}, "description": desc}
}

// envMap is a strMap of environment variables: its keys must be names a
// process can be given (the host sees the rule as propertyNames), and its
// values are secrets that no error ever quotes.
func envMap(desc string) schema {
	s := strMap(desc)
	s["propertyNames"] = schema{"pattern": wire.EnvKeyPattern}
	return s
}

// headerMap is a strMap of HTTP headers: its keys must be header names
// (the host sees the rule as propertyNames), and its values are secrets
// (a bearer token, an API key) that no error ever quotes.
func headerMap(desc string) schema {
	s := strMap(desc)
	s["propertyNames"] = schema{"pattern": wire.HeaderNamePattern}
	return s
}

func enum(desc string, values ...string) schema {
	return schema{"type": "string", "enum": values, "description": desc}
}
func enumList(desc string, values ...string) schema {
	return schema{"type": "array", "items": schema{"type": "string", "enum": values}, "description": desc}
}

// checkArgs validates args against a closed schema: a wrong type, a missing
// required argument or one the tool does not declare is INVALID_ARGUMENT,
// and nothing runs.
func checkArgs(tool string, s schema, args map[string]any) error {
	if err := checkValue(tool, "", s, args); err != nil {
		return &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: err.Error()}
	}
	return nil
}

func checkValue(tool, path string, s schema, v any) error {
	if v == nil && path != "" {
		return nil // an explicit null means "not given"
	}
	t, _ := s["type"].(string)
	if err := checkType(path, t, v); err != nil {
		return err
	}
	if lo, ok := s["minimum"].(int); ok {
		if n, isNum := number(v); isNum && n < float64(lo) {
			return fmt.Errorf("%s must be %d or more, got %s", name(path), lo, gotOf(v))
		}
	}
	if sv, isStr := v.(string); isStr {
		if err := checkString(s, sv); err != nil {
			return fmt.Errorf("%s %w", name(path), err)
		}
	}
	if vals, ok := s["enum"].([]string); ok {
		sv, _ := v.(string)
		if !contains(vals, sv) {
			return fmt.Errorf("%s must be one of %s, got %q", name(path), strings.Join(vals, ", "), sv)
		}
	}
	switch t {
	case "array":
		items, _ := s["items"].(schema)
		for i, item := range v.([]any) {
			if err := checkValue(tool, fmt.Sprintf("%s[%d]", path, i), items, item); err != nil {
				return err
			}
		}
	case "object":
		return checkObject(tool, path, s, v.(map[string]any))
	}
	return nil
}

func checkObject(tool, path string, s schema, obj map[string]any) error {
	props, _ := s["properties"].(schema)
	req, _ := s["required"].([]string)
	extra, _ := s["additionalProperties"].(schema)
	closed := s["additionalProperties"] == false
	for k, val := range obj {
		if p, ok := props[k].(schema); ok {
			if err := checkValue(tool, join(path, k), p, val); err != nil {
				return err
			}
			continue
		}
		if extra != nil {
			if err := checkExtra(tool, path, s, k, extra, val); err != nil {
				return err
			}
			continue
		}
		if closed {
			return unknownArg(tool, path, k, props)
		}
	}
	// Unknown names first: a misspelled required argument is reported as
	// the misspelling (with a "did you mean"), not as a missing argument.
	for _, r := range req {
		if _, ok := obj[r]; !ok {
			return fmt.Errorf("%s requires %s (%s)", where(tool, path), join(path, r), describe(props[r]))
		}
	}
	return nil
}

// checkExtra checks one entry of a map (additionalProperties). Such maps
// hold env values, so a wrong type is reported by its kind only, never its
// text, and a key outside propertyNames is named (keys are not secret).
func checkExtra(tool, path string, s schema, k string, extra schema, val any) error {
	if names, ok := s["propertyNames"].(schema); ok {
		check := map[any]func(string) error{wire.EnvKeyPattern: wire.CheckEnvKey, wire.HeaderNamePattern: wire.CheckHeaderName}[names["pattern"]]
		if check != nil {
			if err := check(k); err != nil {
				return fmt.Errorf("%s: %w", where(tool, path), err)
			}
		}
	}
	if val == nil {
		return nil
	}
	t, _ := extra["type"].(string)
	if err := checkType(join(path, k), t, val); err != nil {
		return fmt.Errorf("%s must be %s, got %s (the value is not shown)", join(path, k), article(t), kindOf(val))
	}
	return nil
}

func unknownArg(tool, path, k string, props schema) error {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	msg := fmt.Sprintf("%s does not take %q", where(tool, path), join(path, k))
	if s := didyoumean.Closest(k, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return fmt.Errorf("%s. It takes: %s", msg, strings.Join(names, ", "))
}

func checkType(path, t string, v any) error {
	ok := true
	switch t {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "number":
		_, ok = number(v)
	case "integer":
		f, isNum := number(v)
		ok = isNum && f == math.Trunc(f)
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("%s must be %s, got %s", name(path), article(t), gotOf(v))
	}
	return nil
}

// checkString applies a schema's string keywords: minLength, and a
// pattern through its rule, whose words say what to pass instead.
func checkString(s schema, v string) error {
	if n, ok := s["minLength"].(int); ok && utf8.RuneCountInString(v) < n {
		return fmt.Errorf("must not be empty")
	}
	if p, ok := s["pattern"].(string); ok {
		if r, known := ruleOf(p); known {
			return r.check(v)
		}
	}
	return nil
}

// A rule is a string rule a schema states as a pattern. The schemas keep
// to standard keywords and no format: a host that compiles them with a
// strict validator (Ajv's defaults throw on any format they do not know)
// must accept every tool. The pattern is written so that ECMA-262 (what
// hosts run) and Go's regexp read it alike; check is the same rule in Go,
// with words that say what to pass instead, and the schema tests hold the
// two to the same answers.
type rule struct {
	pattern string
	check   func(string) error
}

// The rules of run-mcp's arguments.
var (
	// connNameRule: a connection's name is shown in every reply, so it
	// has no control characters; an empty one would be no name at all.
	connNameRule = rule{pattern: `^[^\x00-\x1F\x7F-\x9F]+$`, check: checkConnName}
	// fileURIRule: roots are directories, named by file:// URIs.
	fileURIRule = rule{pattern: `^file://`, check: checkFileURI}
)

// ruleOf finds the rule a pattern states.
func ruleOf(pattern string) (rule, bool) {
	for _, r := range []rule{connNameRule, fileURIRule} {
		if r.pattern == pattern {
			return r, true
		}
	}
	return rule{}, false
}

func checkConnName(v string) error {
	if v == "" {
		return fmt.Errorf("must not be empty: leave it out for the default connection, or give a name such as \"api\"")
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("must not contain control characters (it is shown in every reply), got %q", v)
		}
	}
	return nil
}

func checkFileURI(v string) error {
	if !strings.HasPrefix(v, "file://") {
		return fmt.Errorf("must be a file:// URI (roots are directories the server may use, e.g. file:///home/me/project), got %q", v)
	}
	return nil
}

// number reads a JSON number, however the arguments were decoded.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func gotOf(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	switch v.(type) {
	case string:
		return "a string " + s
	case float64, json.Number:
		return "the number " + s
	case bool:
		return s
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return s
}

// kindOf names a JSON value's type without its content.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

func article(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	}
	return "a " + t
}

func describe(p any) string {
	if s, ok := p.(schema); ok {
		if d, _ := s["description"].(string); d != "" {
			return d
		}
	}
	return "required"
}

func contains(vals []string, s string) bool {
	for _, v := range vals {
		if v == s {
			return true
		}
	}
	return false
}

func name(path string) string {
	if path == "" {
		return "the arguments"
	}
	return path
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func where(tool, path string) string {
	if path == "" {
		return tool
	}
	return tool + " " + path
}
