package configscan

import "slices"

// markGeminiOff marks the entries Gemini CLI leaves out: named in
// mcp.excluded (excludeMCPServers before settings v2), or missing from a
// non-empty mcp.allowed (allowMCPServers).
func markGeminiOff(doc map[string]any, entries []Entry) {
	mcp, _ := doc["mcp"].(map[string]any)
	excluded := append(names(mcp["excluded"]), names(doc["excludeMCPServers"])...)
	allowed := append(names(mcp["allowed"]), names(doc["allowMCPServers"])...)
	for i := range entries {
		name := entries[i].Name
		if slices.Contains(excluded, name) || (len(allowed) > 0 && !slices.Contains(allowed, name)) {
			entries[i].Disabled = true
		}
	}
}

// names reads a JSON array of strings, ignoring anything else.
func names(list any) []string {
	items, _ := list.([]any)
	var out []string
	for _, item := range items {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
