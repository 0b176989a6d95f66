package supervise

import (
	"os"
	"slices"
	"sort"
)

// inheritedEnv names the only variables a target inherits from run-mcp's own
// environment, as every MCP client does: a server must be given its secrets
// explicitly, so that what reaches it is visible in the call that started it.
func inheritedEnv() []string { return []string{"PATH", "HOME", "SHELL", "USER"} }

// TargetEnv is the environment for a target: the whitelisted variables of
// this process, then explicit, which wins over them. The result is sorted so
// that the same inputs always give the same environment. (It is here rather
// than in wire so that an early hand-off, made before wire's dependencies
// are initialised, builds the very same one.)
func TargetEnv(explicit map[string]string) []string {
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

// Equal says whether t and u would run the same thing the same way.
func (t Target) Equal(u Target) bool {
	return t.Path == u.Path && t.Dir == u.Dir && slices.Equal(t.Argv, u.Argv) && slices.Equal(t.Env, u.Env)
}
