package configscan

import (
	"fmt"
	"strings"
)

// problems collects why an entry cannot be launched as written.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) String() string { return strings.Join(p, "; ") }

// entryFromValue turns one server definition into an Entry. It understands
// every client's spelling (command/args/env, url/httpUrl/serverUrl,
// headers/http_headers, Zed's {"command": {"path"…}}, Codex's env_vars…) and
// keeps only the names of env variables and headers, never their values.
// remote is the type of an entry that gives only "url".
func entryFromValue(base Entry, name string, v any, remote string) Entry {
	e := base
	e.Name = name
	obj, ok := v.(map[string]any)
	if !ok {
		e.Problem = fmt.Sprintf("the definition is %s, not an object with a command or url; nothing to launch", kindOf(v))
		return e
	}
	var p problems
	envFromCommand := readCommand(obj, &e, &p)
	urlKey := readURL(obj, &e, &p)
	e.Cwd = optionalString(obj, "cwd", &p)
	e.EnvKeys = sortedUnique(append(envFromCommand, envNames(obj, &p)...))
	e.Headers = sortedUnique(headerNames(obj, &p))
	e.Disabled = isDisabled(obj)
	e.Type = resolveType(obj, e, urlKey, remote, &p)
	e.Problem = p.String()
	return e
}

// readCommand fills Command and Args. It returns env names found inside a
// Zed-style command object, which carries its own env.
func readCommand(obj map[string]any, e *Entry, p *problems) []string {
	raw, ok := obj["command"]
	if !ok || raw == nil {
		e.Args = stringList(obj, "args", p)
		return nil
	}
	switch c := raw.(type) {
	case string:
		if strings.TrimSpace(c) == "" {
			p.add("command is empty; give the program to run")
		}
		e.Command = c
		e.Args = stringList(obj, "args", p)
		return nil
	case map[string]any: // Zed before 0.187: {"command": {"path", "args", "env"}}
		e.Command = optionalString(c, "path", p)
		if e.Command == "" {
			p.add("command has no \"path\"; give the program to run")
		}
		e.Args = stringList(c, "args", p)
		return objectKeys(c, "env", p)
	default:
		p.add("command is %s, not a string; put the program in \"command\" and its arguments in \"args\"", kindOf(raw))
		e.Args = stringList(obj, "args", p)
		return nil
	}
}

// readURL fills URL from whichever key the client uses and says which it was.
func readURL(obj map[string]any, e *Entry, p *problems) string {
	for _, key := range []string{"httpUrl", "url", "serverUrl"} {
		if raw, ok := obj[key]; ok && raw != nil {
			e.URL = optionalString(obj, key, p)
			return key
		}
	}
	return ""
}

func isDisabled(obj map[string]any) bool {
	return obj["disabled"] == true || obj["enabled"] == false
}

// envNames lists the environment variable names an entry sets or passes on:
// the keys of "env", and Codex's "env_vars" list of names.
func envNames(obj map[string]any, p *problems) []string {
	return append(objectKeys(obj, "env", p), nameList(obj, "env_vars", p)...)
}

// headerNames lists the HTTP header names an entry sends.
func headerNames(obj map[string]any, p *problems) []string {
	var names []string
	for _, key := range []string{"headers", "http_headers", "env_http_headers"} {
		names = append(names, objectKeys(obj, key, p)...)
	}
	if v, ok := obj["bearer_token_env_var"].(string); ok && v != "" { // Codex sends it as a bearer token
		names = append(names, "Authorization")
	}
	return names
}
