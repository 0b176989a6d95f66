package mcpfront

import "github.com/mark3labs/mcp-go/mcp"

// Argument readers. The arguments were already checked against the tool's
// closed schema, so a present value has the declared type.

func getStr(a map[string]any, k string) string {
	s, _ := a[k].(string)
	return s
}

func getInt(a map[string]any, k string, def int) int {
	if f, ok := number(a[k]); ok {
		return int(f)
	}
	return def
}

func getBool(a map[string]any, k string) bool {
	b, _ := a[k].(bool)
	return b
}

func has(a map[string]any, k string) bool {
	v, ok := a[k]
	return ok && v != nil
}

func getStrs(a map[string]any, k string) []string {
	raw, _ := a[k].([]any)
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func getStrMap(a map[string]any, k string) map[string]string {
	raw, _ := a[k].(map[string]any)
	if raw == nil {
		return nil
	}
	out := make(map[string]string, len(raw))
	for key, v := range raw {
		out[key], _ = v.(string)
	}
	return out
}

func getObj(a map[string]any, k string) map[string]any {
	m, _ := a[k].(map[string]any)
	return m
}

func getRoots(a map[string]any) []mcp.Root {
	raw, _ := a["roots"].([]any)
	roots := make([]mcp.Root, 0, len(raw))
	for _, r := range raw {
		m, _ := r.(map[string]any)
		roots = append(roots, mcp.Root{URI: getStr(m, "uri"), Name: getStr(m, "name")})
	}
	return roots
}
