package configscan

import (
	"os"
	"path/filepath"
	"runtime"
)

// host is the machine as Discover sees it: Options with the defaults filled in.
type host struct {
	home, cwd, goos, root string
	getenv                func(string) string
	// lookup tells an empty variable from an unset one; nil when getenv
	// is a test's (then empty counts as unset).
	lookup func(string) (string, bool)
}

func newHost(opts Options) host {
	h := host{home: opts.Home, cwd: opts.Cwd, goos: opts.GOOS, root: opts.SystemRoot, getenv: opts.Env}
	if h.getenv == nil {
		h.getenv, h.lookup = os.Getenv, os.LookupEnv
	}
	if h.goos == "" {
		h.goos = runtime.GOOS
	}
	if h.root == "" {
		h.root = string(filepath.Separator)
	}
	if h.home == "" {
		h.home, _ = os.UserHomeDir() // no home: the home-based paths are skipped
	}
	if h.cwd == "" {
		h.cwd, _ = os.Getwd() // no cwd: the project paths are skipped
	}
	h.home = absOrEmpty(h.home)
	h.cwd = absOrEmpty(h.cwd)
	return h
}

func absOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return abs
}

// inHome joins parts under the home directory, or "" when there is no home.
func (h host) inHome(parts ...string) string {
	if h.home == "" {
		return ""
	}
	return filepath.Join(append([]string{h.home}, parts...)...)
}

// system joins parts under the machine root (/ unless faked by a test).
func (h host) system(parts ...string) string {
	return filepath.Join(append([]string{h.root}, parts...)...)
}

// envDir is $name when set, else the fallback.
func (h host) envDir(name, fallback string) string {
	if v := h.getenv(name); v != "" {
		return absOrEmpty(v)
	}
	return fallback
}

// configHome is $XDG_CONFIG_HOME or ~/.config (always ~/.config on macOS,
// where Zed keeps its settings there too).
func (h host) configHome() string {
	if h.goos == "darwin" {
		return h.inHome(".config")
	}
	return h.envDir("XDG_CONFIG_HOME", h.inHome(".config"))
}

// appData is where Electron apps (Claude Desktop, VS Code) keep user data.
func (h host) appData() string {
	switch h.goos {
	case "darwin":
		return h.inHome("Library", "Application Support")
	case "windows":
		return h.envDir("APPDATA", h.inHome("AppData", "Roaming"))
	}
	return h.configHome()
}

// ancestors lists dir, its parent, and so on up to the filesystem root.
func ancestors(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// projectDirs lists the directories whose project configs apply: the cwd and
// each parent up to the first one holding .git (a repo root), else up to /.
func projectDirs(cwd string) []string {
	var out []string
	for _, dir := range ancestors(cwd) {
		out = append(out, dir)
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			break
		}
	}
	return out
}

// claudeProjectKeys lists the keys Claude Code may have used for the cwd and
// its ancestors in ~/.claude.json: the path as given and with symlinks
// resolved (macOS /tmp is /private/tmp), without repeats.
func claudeProjectKeys(cwd string) []string {
	keys := ancestors(cwd)
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		keys = append(keys, ancestors(real)...)
	}
	return uniqueStrings(keys)
}

func uniqueStrings(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
