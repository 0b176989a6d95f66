package configscan

import (
	"fmt"
	"sort"
	"strings"
)

// reference is ${…} in a config value: Claude Code's ${VAR} and
// ${VAR:-default}, and the editors' ${env:VAR}, ${userHome} and
// ${workspaceFolder}.
var reference = lazyRegexp(`\$\{([^}]*)\}`)

// expander expands the references of one entry from run-mcp's own
// environment, as the client would from its own, and remembers what it
// could not expand. It never records a value.
type expander struct {
	h       host
	project string
	missing map[string]bool
	unknown map[string]bool
}

func (x *expander) expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return reference().ReplaceAllStringFunc(s, func(m string) string {
		inner := m[2 : len(m)-1]
		switch inner {
		case "userHome":
			return x.h.home
		case "workspaceFolder":
			return x.project
		}
		if strings.HasPrefix(inner, "input:") || strings.Contains(inner, ":") && !strings.Contains(inner, ":-") && !strings.HasPrefix(inner, "env:") {
			x.note(&x.unknown, m)
			return m
		}
		name, def, hasDefault := strings.Cut(strings.TrimPrefix(inner, "env:"), ":-")
		if v, ok := lookupEnv(x.h, name); ok {
			return v
		}
		if hasDefault {
			return def
		}
		x.note(&x.missing, name)
		return m
	})
}

func (x *expander) note(set *map[string]bool, s string) {
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[s] = true
}

// err says what could not be expanded, as Claude Code refuses an entry
// whose variables are missing; names only, never values.
func (x *expander) err(e Entry) error {
	var parts []string
	if len(x.missing) > 0 {
		names := setList(x.missing)
		parts = append(parts, fmt.Sprintf("it uses ${%s}, not set in run-mcp's environment; export %s (or write ${NAME:-default} in the entry)",
			strings.Join(names, "}, ${"), strings.Join(names, ", ")))
	}
	if len(x.unknown) > 0 {
		parts = append(parts, fmt.Sprintf("it uses %s, which only its editor can fill in (run-mcp cannot prompt); run the server's command yourself",
			strings.Join(setList(x.unknown), ", ")))
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("server %q (%s, %s) cannot be launched: %s", e.Name, e.Source, e.File, strings.Join(parts, "; "))
}

func setList(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
