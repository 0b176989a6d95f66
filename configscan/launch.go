package configscan

import (
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"

	"github.com/run-mcp/run-mcp/internal/didyoumean"
)

// Launch is how a client would start one registered entry: unlike Entry it
// holds the VALUES of env and headers, so it must never be printed, logged
// or serialised. Only the caller that spawns or dials the server reads them.
type Launch struct {
	Entry   Entry
	Command string
	Args    []string
	Cwd     string            // "" = the caller's working directory
	Env     map[string]string `json:"-"`
	URL     string
	Headers map[string]string `json:"-"`
	// Unfilled are env names whose values use a reference only an editor
	// can fill in (${input:…}): left out of Env, for the caller to supply.
	Unfilled []string
}

// String never shows a value: a Launch printed by mistake (%v) names the
// entry and the keys only.
func (l Launch) String() string {
	target := l.URL
	if target == "" {
		target = strings.Join(append([]string{l.Command}, l.Args...), " ")
	}
	return fmt.Sprintf("%s (%s): %s, env %v, headers %v", l.Entry.Name, l.Entry.Source, target, sortedKeys(l.Env), sortedKeys(l.Headers))
}

// HeadersWith is the entry's headers with over's on top of them: a header
// named in over, in any case, replaces the entry's. The entry's map is not
// changed.
func (l Launch) HeadersWith(over map[string]string) map[string]string {
	merged := maps.Clone(l.Headers)
	for k, v := range over {
		for old := range merged {
			if strings.EqualFold(old, k) {
				delete(merged, old)
			}
		}
		if merged == nil {
			merged = map[string]string{}
		}
		merged[k] = v
	}
	return merged
}

// Find resolves name to the one entry it names among those Discover(opts)
// finds (opts.Filter is ignored) and reads its definition again, values
// included, with ${VAR} references expanded from opts.Env. name is a server
// name, or SELECTOR:NAME where SELECTOR is a source ("cursor (user)"), a
// client ("cursor") or a config file's path, for a name several files define.
// The errors are *NotFoundError, *AmbiguousError, or why the entry cannot be
// launched.
func Find(opts Options, name string) (Launch, error) {
	opts.Filter = ""
	res := Discover(opts)
	e, err := pick(res, name)
	if err != nil {
		return Launch{}, err
	}
	if e.Problem != "" {
		return Launch{}, fmt.Errorf("server %q (%s, %s) cannot be launched as written: %s; fix the entry in that file", e.Name, e.Source, e.File, e.Problem)
	}
	if e.Type == "sse" {
		return Launch{}, fmt.Errorf("server %q (%s, %s) uses the deprecated HTTP+SSE transport, which run-mcp does not speak; "+
			"if the server also serves Streamable HTTP (often at /mcp), give that URL as the target instead", e.Name, e.Source, e.File)
	}
	h := newHost(opts)
	def, err := definition(e)
	if err != nil {
		return Launch{}, err
	}
	return launchOf(h, e, def)
}

// NotFoundError is a name no config defines.
type NotFoundError struct {
	Name       string
	Names      []string // every registered name, sorted, once each
	Suggestion string   // the closest registered name, or ""
	Unreadable int      // config files that could not be read (the server may be in one)
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no MCP server named %q is registered with the clients on this machine.", e.Name)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" Did you mean %q?", e.Suggestion)
	}
	if len(e.Names) == 0 {
		msg += " No client config here lists any server."
	} else {
		msg += " Registered: " + strings.Join(e.Names, ", ") + "."
	}
	if e.Unreadable > 0 {
		msg += fmt.Sprintf(" %d config file(s) could not be read; it may be in one of them.", e.Unreadable)
	}
	return msg
}

// AmbiguousError is a name several configs define.
type AmbiguousError struct {
	Name    string
	Matches []Entry
}

func (e *AmbiguousError) Error() string {
	where := make([]string, 0, len(e.Matches))
	for _, m := range e.Matches {
		where = append(where, fmt.Sprintf("%s in %s", m.Source, m.File))
	}
	return fmt.Sprintf("the server name %q is defined %d times: %s.", e.Name, len(e.Matches), strings.Join(where, "; "))
}

// Selectors are the SELECTOR:NAME forms that pick each match: by source,
// or by file where two matches share a source.
func (e *AmbiguousError) Selectors() []string {
	count := map[string]int{}
	for _, m := range e.Matches {
		count[m.Source]++
	}
	out := make([]string, 0, len(e.Matches))
	for _, m := range e.Matches {
		if count[m.Source] == 1 {
			out = append(out, m.Source+":"+m.Name)
		} else {
			out = append(out, m.File+":"+m.Name)
		}
	}
	return out
}

// pick finds the one entry name names.
func pick(res Result, name string) (Entry, error) {
	var matches []Entry
	for _, e := range res.Entries {
		if e.Name == name {
			matches = append(matches, e)
		}
	}
	if len(matches) == 0 {
		if i := strings.LastIndex(name, ":"); i > 0 && i < len(name)-1 {
			sel, short := name[:i], name[i+1:]
			for _, e := range res.Entries {
				if e.Name == short && selects(sel, e) {
					matches = append(matches, e)
				}
			}
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		names := registeredNames(res.Entries)
		return Entry{}, &NotFoundError{Name: name, Names: names, Suggestion: didyoumean.Closest(name, names), Unreadable: len(res.Errors)}
	}
	return Entry{}, &AmbiguousError{Name: matches[0].Name, Matches: matches}
}

// selects says whether sel picks e: its source ("cursor (user)"), its
// client ("cursor", every scope), or its file.
func selects(sel string, e Entry) bool {
	client, _, _ := strings.Cut(e.Source, " (")
	return strings.EqualFold(sel, e.Source) || strings.EqualFold(sel, client) ||
		filepath.Clean(sel) == filepath.Clean(e.File)
}

func registeredNames(entries []Entry) []string {
	seen := map[string]bool{}
	var names []string
	for _, e := range entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			names = append(names, e.Name)
		}
	}
	sort.Strings(names)
	return names
}

// definition reads e's file again and returns its definition object.
func definition(e Entry) (map[string]any, error) {
	isTOML := strings.EqualFold(filepath.Ext(e.File), ".toml")
	doc, exists, err := load(e.File, isTOML)
	if err == nil && !exists {
		err = fmt.Errorf("the file is gone")
	}
	if err != nil && !isTOML && e.Source == "file" {
		doc, err = retryAsTOML(e.File, err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s again to launch %q: %w", e.File, e.Name, err)
	}
	for _, path := range tablePaths(e.Source) {
		servers, found, _ := table(doc, path)
		if !found {
			continue
		}
		if obj, ok := servers[e.Name].(map[string]any); ok {
			return obj, nil
		}
	}
	return nil, fmt.Errorf("%s no longer defines %q (it changed since it was read); run the command again", e.File, e.Name)
}

// tablePaths are where a source keeps its servers, as key paths.
func tablePaths(source string) [][]string {
	if dir, ok := strings.CutPrefix(source, claudeLocalPrefix); ok {
		return [][]string{{"projects", strings.TrimSuffix(dir, ")"), "mcpServers"}}
	}
	client, _, _ := strings.Cut(source, " (")
	var keys []string
	switch {
	case source == "file":
		keys = fileShapes()
	case source == "vscode (settings.json)":
		keys = []string{"mcp.servers"}
	case client == "vscode":
		keys = []string{"servers"}
	case client == "codex":
		keys = []string{"mcp_servers"}
	case client == "zed":
		keys = []string{"context_servers"}
	default:
		keys = []string{"mcpServers"}
	}
	out := make([][]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, strings.Split(k, "."))
	}
	return out
}

// launchOf reads the values of one definition as its client would use
// them.
func launchOf(h host, e Entry, def map[string]any) (Launch, error) {
	l := Launch{Entry: e, Command: e.Command, Args: append([]string{}, e.Args...), Cwd: e.Cwd, URL: e.URL}
	env := map[string]string{}
	if zed, ok := def["command"].(map[string]any); ok {
		addValues(env, zed["env"])
	}
	addValues(env, def["env"])
	for _, name := range nameListOf(def["env_vars"]) { // Codex: passed on from the client's environment
		if v, ok := lookupEnv(h, name); ok {
			env[name] = v
		}
	}
	headers := map[string]string{}
	addValues(headers, def["headers"])
	addValues(headers, def["http_headers"])
	if m, ok := def["env_http_headers"].(map[string]any); ok { // Codex: header -> variable name
		for header, v := range m {
			if name, ok := v.(string); ok {
				if val, set := lookupEnv(h, name); set {
					headers[header] = val
				}
			}
		}
	}
	if name, ok := def["bearer_token_env_var"].(string); ok && name != "" {
		val, set := lookupEnv(h, name)
		if !set {
			return Launch{}, fmt.Errorf("server %q (%s) sends its token from $%s, which is not set in run-mcp's environment; export it and try again", e.Name, e.Source, name)
		}
		headers["Authorization"] = "Bearer " + val
	}
	x := expander{h: h, project: projectOf(e)}
	l.Command = x.expand(l.Command)
	for i := range l.Args {
		l.Args[i] = x.expand(l.Args[i])
	}
	l.Cwd = x.expand(l.Cwd)
	l.URL = x.expand(l.URL)
	for k, v := range env {
		vx := expander{h: h, project: x.project}
		env[k] = vx.expand(v)
		for name := range vx.missing {
			x.note(&x.missing, name)
		}
		if len(vx.unknown) > 0 { // the caller may supply it (--env, env)
			delete(env, k)
			l.Unfilled = append(l.Unfilled, k)
		}
	}
	sort.Strings(l.Unfilled)
	for k, v := range headers {
		headers[k] = x.expand(v)
	}
	if err := x.err(e); err != nil {
		return Launch{}, err
	}
	if l.Cwd != "" && !filepath.IsAbs(l.Cwd) && h.cwd != "" {
		l.Cwd = filepath.Join(h.cwd, l.Cwd)
	}
	if len(env) > 0 {
		l.Env = env
	}
	if len(headers) > 0 {
		l.Headers = headers
	}
	return l, nil
}

// addValues copies an object of names to values, numbers and booleans as
// text (clients accept them).
func addValues(dst map[string]string, raw any) {
	m, _ := raw.(map[string]any)
	for k, v := range m {
		switch s := v.(type) {
		case string:
			dst[k] = s
		case float64, int64, bool:
			dst[k] = fmt.Sprint(s)
		}
	}
}

func nameListOf(raw any) []string {
	var items []any
	switch v := raw.(type) {
	case []any:
		items = v
	case []map[string]any:
		for _, m := range v {
			items = append(items, m)
		}
	}
	var out []string
	for _, item := range items {
		if n := itemName(item); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func lookupEnv(h host, name string) (string, bool) {
	if h.lookup != nil {
		return h.lookup(name)
	}
	v := h.getenv(name)
	return v, v != ""
}

// projectOf is the project directory of a project-scope entry (where
// .mcp.json is, or the parent of .cursor, .vscode…), for ${workspaceFolder}.
func projectOf(e Entry) string {
	dir := filepath.Dir(e.File)
	switch filepath.Base(dir) {
	case ".cursor", ".vscode", ".codex", ".gemini", ".zed":
		return filepath.Dir(dir)
	}
	return dir
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
