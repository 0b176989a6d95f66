package wire

import (
	"os"
	"sort"
)

// inheritedEnv names the only variables a target inherits from run-mcp's own
// environment, as every MCP client does: a server must be given its secrets
// explicitly, so that what reaches it is visible in the call that started it.
func inheritedEnv() []string { return []string{"PATH", "HOME", "SHELL", "USER"} }

// BuildEnv returns the environment for a target: the whitelisted variables of
// this process, then explicit, which wins over them. The result is sorted so
// that the same inputs always give the same environment.
func BuildEnv(explicit map[string]string) []string {
	merged := make(map[string]string, 4+len(explicit))
	for _, name := range inheritedEnv() {
		if v, ok := os.LookupEnv(name); ok {
			merged[name] = v
		}
	}
	for k, v := range explicit {
		merged[k] = v
	}
	out := make([]string, 0, len(merged))
	for k, v := range merged {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// EnvKeys returns the sorted names of env, never its values: values of
// environment variables are secrets and are never echoed back.
func EnvKeys(env map[string]string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
