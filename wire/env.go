package wire

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// inheritedEnv names the only variables a target inherits from run-mcp's own
// environment, as every MCP client does: a server must be given its secrets
// explicitly, so that what reaches it is visible in the call that started it.
func inheritedEnv() []string { return []string{"PATH", "HOME", "SHELL", "USER"} }

// BuildEnv returns the environment for a target: the whitelisted variables of
// this process (PATH, HOME, SHELL, USER), then explicit, which wins over
// them. The result is sorted so that the same inputs always give the same
// environment.
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

// EnvKeyPattern is what a name must match to be an environment variable a
// target can be given. Names outside it are refused rather than passed on:
// one with "=" would split differently in the child, one with NUL would be
// cut short, and an empty one is a slip for a missing key.
const EnvKeyPattern = `^[A-Za-z_][A-Za-z0-9_]*$`

// CheckEnvKey refuses a name that cannot be an environment variable. The
// error names the key, which is not secret; it never sees the value.
func CheckEnvKey(key string) error {
	switch {
	case key == "":
		return errors.New("an environment variable name is empty; give it as KEY=VALUE")
	case !validEnvKey(key):
		return fmt.Errorf("%q is not a valid environment variable name: use letters, digits and _, not starting with a digit", key)
	}
	return nil
}

// validEnvKey matches EnvKeyPattern without a regexp.
func validEnvKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return k != ""
}

// HeaderNamePattern is what an HTTP header's name must match (RFC 9110's
// token): a name outside it cannot be sent.
const HeaderNamePattern = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"

// CheckHeaderName refuses a name HTTP cannot carry. The error names the
// header, which is not secret; it never sees the value.
func CheckHeaderName(name string) error {
	if name == "" {
		return errors.New("a header name is empty; give it as Name: value")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return fmt.Errorf("%q is not a header name HTTP allows: use letters, digits and !#$%%&'*+-.^_`|~", name)
		}
	}
	return nil
}
