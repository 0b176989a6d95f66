package configscan

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// kindOf names the JSON/TOML kind of a decoded value, with its article.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, int64, int:
		return "a number"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "an object"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("a %T", v)
}

// optionalString reads a string field; missing is "", another kind a problem.
func optionalString(obj map[string]any, key string, p *problems) string {
	raw, ok := obj[key]
	if !ok || raw == nil {
		return ""
	}
	s, ok := raw.(string)
	if !ok {
		p.add("%s is %s, not a string", key, kindOf(raw))
	}
	return s
}

// stringList reads an array of strings such as args. Numbers and booleans
// are kept as text but reported, since most clients refuse them.
func stringList(obj map[string]any, key string, p *problems) []string {
	raw, ok := obj[key]
	if !ok || raw == nil {
		return nil
	}
	items, ok := raw.([]any)
	if !ok {
		p.add("%s is %s, not an array of strings", key, kindOf(raw))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		switch s := item.(type) {
		case string:
			out = append(out, s)
		case float64, int64, bool:
			out = append(out, fmt.Sprint(s))
			p.add("%s[%d] is %s, not a string; quote it", key, i, kindOf(item))
		default:
			p.add("%s[%d] is %s, not a string", key, i, kindOf(item))
		}
	}
	return out
}

// objectKeys lists the keys of an object field such as env or headers,
// never its values.
func objectKeys(obj map[string]any, key string, p *problems) []string {
	raw, ok := obj[key]
	if !ok || raw == nil {
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		p.add("%s is %s, not an object of names to values", key, kindOf(raw))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// nameList reads a list of names, each a string or a table with "name"
// (Codex's env_vars accepts both).
func nameList(obj map[string]any, key string, p *problems) []string {
	var items []any
	switch raw := obj[key].(type) {
	case nil:
		return nil
	case []any:
		items = raw
	case []map[string]any:
		for _, m := range raw {
			items = append(items, m)
		}
	default:
		p.add("%s is %s, not an array of names", key, kindOf(raw))
		return nil
	}
	var out []string
	for i, item := range items {
		if name := itemName(item); name != "" {
			out = append(out, name)
		} else {
			p.add("%s[%d] is %s, not a variable name", key, i, kindOf(item))
		}
	}
	return out
}

func itemName(item any) string {
	switch v := item.(type) {
	case string:
		return v
	case map[string]any:
		name, _ := v["name"].(string)
		return name
	}
	return ""
}

func sortedUnique(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	sort.Strings(in)
	out := in[:1]
	for _, s := range in[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
