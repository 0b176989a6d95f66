package configscan

// Entry is one MCP server definition found in a client's config.
type Entry struct {
	Name     string   `json:"name"`
	Source   string   `json:"source"` // which client and scope, e.g. "claude-code (project)", "cursor (user)", "file", "scan"
	File     string   `json:"file"`
	Type     string   `json:"type"` // stdio, http or sse (client spellings normalised); "" when it cannot be told
	Command  string   `json:"command,omitempty"`
	Args     []string `json:"args,omitempty"`
	URL      string   `json:"url,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	EnvKeys  []string `json:"env_keys,omitempty"`     // names only, sorted
	Headers  []string `json:"header_names,omitempty"` // names only, sorted
	Disabled bool     `json:"disabled,omitempty"`     // the client has it switched off
	Problem  string   `json:"problem,omitempty"`      // why it cannot be launched as written
}

// FileError is a file that exists but could not be read or parsed.
type FileError struct {
	File   string `json:"file"`
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Result is what Discover found.
type Result struct {
	Entries  []Entry     `json:"entries"`
	Errors   []FileError `json:"errors"`
	Searched []string    `json:"searched"` // every path looked at, existing or not
}

// Options steers Discover. The zero value reads the real machine.
type Options struct {
	Home   string              // home directory; "" = os.UserHomeDir
	Cwd    string              // directory whose project configs count; "" = os.Getwd
	Filter string              // case-insensitive substring over name, command+args, url, source, file
	File   string              // read only this file, guessing its format; Source is "file"
	Scan   bool                // also walk up from Cwd for any *.json with a top-level mcpServers
	Env    func(string) string // for $CODEX_HOME, $COPILOT_HOME, $XDG_CONFIG_HOME…; nil = os.Getenv
	GOOS   string              // "" = runtime.GOOS
	// SystemRoot prefixes machine-wide paths (/etc/…, /Library/…) so tests
	// can fake them; "" = "/".
	SystemRoot string
}
