package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// MaxNameLen bounds a session's name: with its longest suffix
// (".starting") it stays a file name every file system takes (255 bytes).
const MaxNameLen = 200

// ValidName says whether name may name a session: it names files in the
// session directory, so it starts with a letter or digit and holds only
// those and '.', '_' and '-', up to MaxNameLen bytes (never a path out of
// the directory, never a hidden file).
func ValidName(name string) bool {
	if name == "" || len(name) > MaxNameLen || !alnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxRecord bounds what is read of a record file.
const maxRecord = 1 << 20

// Record is what a session remembers on disk, beside its socket (Socket
// is the socket's path, or the named pipe's name on Windows). Values of
// environment variables are secrets: only their names and a hash are kept,
// enough to refuse a call that names different ones.
type Record struct {
	Name      string `json:"name"`
	Socket    string `json:"socket"`
	DaemonPid int    `json:"daemon_pid"`
	// DaemonStart and ServerStart are the processes' start times (Linux:
	// clock ticks since boot, /proc/<pid>/stat field 22; Windows: creation
	// time in 100 ns units, GetProcessTimes; 0 elsewhere), so a
	// reused pid is not taken for the daemon or its server.
	DaemonStart uint64   `json:"daemon_start,omitempty"`
	Pid         int      `json:"pid"`
	ServerStart uint64   `json:"server_start,omitempty"`
	Target      string   `json:"command"`
	Command     string   `json:"exec"`
	Args        []string `json:"args"`
	URL         string   `json:"url,omitempty"`
	Cwd         string   `json:"cwd"`
	EnvKeys     []string `json:"env_keys"`
	EnvHash     string   `json:"env_hash"`
	// EnvHashes fingerprint each value alone, so a refusal can name the
	// variables that differ (names only).
	EnvHashes map[string]string `json:"env_hashes,omitempty"`
	// HeaderKeys and HeaderHashes are the HTTP headers (static credentials)
	// an HTTP session sends, as env is kept: names, and a fingerprint of
	// each value alone.
	HeaderKeys   []string          `json:"header_keys,omitempty"`
	HeaderHashes map[string]string `json:"header_hashes,omitempty"`
	Protocol     string            `json:"protocol"`
	// Negotiated is the revision the session's server last negotiated,
	// kept current after each reconnect ("" before any).
	Negotiated  string    `json:"negotiated,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	IdleMinutes float64   `json:"idle_timeout"`
	// ConnectTimeoutMS and RequestTimeoutMS are the budgets the session
	// was started with (0: the defaults), so a client knows how long an
	// operation that gives none of its own may take (Request.Budget).
	ConnectTimeoutMS int64 `json:"connect_timeout_ms,omitempty"`
	RequestTimeoutMS int64 `json:"request_timeout_ms,omitempty"`
}

// RecordPath and LogPath are a session's files in the session directory.
func RecordPath(dir, name string) string { return filepath.Join(dir, name+".json") }
func LogPath(dir, name string) string    { return filepath.Join(dir, name+".log") }

// LoadRecord reads a session's record; nil when there is none.
func LoadRecord(dir, name string) (*Record, error) {
	b, err := safesocket.ReadPrivate(RecordPath(dir, name), maxRecord)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the session record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the session record %s is damaged (%s); close-session %s removes it", RecordPath(dir, name), wire.JSONWords(err), name)
	}
	return &r, nil
}

// SaveRecord writes a record atomically, 0600, never through a link.
func SaveRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := safesocket.WritePrivate(RecordPath(dir, r.Name), b); err != nil {
		return fmt.Errorf("write the session record: %w", err)
	}
	return nil
}

// RemoveRecord removes a session's record.
func RemoveRecord(dir, name string) {
	_ = os.Remove(RecordPath(dir, name))
}

// Records reads every session record in dir, by name.
func Records(dir string) []*Record {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	var out []*Record
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if rec, err := LoadRecord(dir, name); err == nil && rec != nil {
			out = append(out, rec)
		}
	}
	return out
}

// NewRecord describes the session a config starts.
func NewRecord(dir, name string, cfg actors.Config, idle float64) *Record {
	r := &Record{Name: name, Socket: safesocket.Path(dir, name), Target: cfg.Target(), Command: cfg.Spec.Command,
		Args: cfg.Spec.Args, URL: cfg.URL, Cwd: cfg.Spec.Dir, EnvKeys: wire.EnvKeys(cfg.Spec.Env),
		EnvHash: EnvHash(cfg.Spec.Env), EnvHashes: EnvHashes(cfg.Spec.Env), Protocol: cfg.Era.String(), StartedAt: time.Now(), IdleMinutes: idle,
		ConnectTimeoutMS: cfg.ConnectTimeout.Milliseconds(), RequestTimeoutMS: cfg.RequestTimeout.Milliseconds()}
	if len(cfg.Headers) > 0 {
		r.HeaderKeys, r.HeaderHashes = wire.EnvKeys(cfg.Headers), EnvHashes(cfg.Headers)
	}
	if r.Args == nil {
		r.Args = []string{}
	}
	return r
}

// EnvHash fingerprints env values without keeping them.
func EnvHash(env map[string]string) string {
	keys := wire.EnvKeys(env)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, env[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EnvHashes fingerprints each env value alone, without keeping it.
func EnvHashes(env map[string]string) map[string]string {
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = EnvHash(map[string]string{k: v})
	}
	return out
}

// Mismatch says how the server a caller names differs from what the
// session was started with ("" when it does not), in 3.0's words: a
// different command, or the same relative command from another directory,
// is "already running a different server"; env "env differs for: KEY"
// (names only); another protocol "running protocol: P". A caller that
// names nothing matches.
func (r *Record) Mismatch(c *Caller) string {
	if c == nil {
		return ""
	}
	var diffs []string
	if c.Target != "" {
		if c.Target != r.Target {
			diffs = append(diffs, fmt.Sprintf("is already running a different server: it runs %q, this call names %q", r.Target, c.Target))
		} else if !c.HTTP && c.Cwd != r.Cwd && relative(c.Command, c.Args, r.Cwd, c.Cwd) {
			diffs = append(diffs, fmt.Sprintf("is already running a different server: the relative command %q was started in %s, this call is in %s",
				r.Target, r.Cwd, c.Cwd))
		}
	}
	if c.EnvGiven && c.EnvHash != r.EnvHash {
		diffs = append(diffs, fmt.Sprintf("was started with different env values: env differs for: %s (names only; values are not shown)", strings.Join(r.envDiff(c), ", ")))
	}
	if c.HeadersGiven {
		if differ := hashDiff(r.HeaderHashes, c.HeaderHashes); len(differ) > 0 {
			diffs = append(diffs, fmt.Sprintf("was started with different headers: headers differ for: %s (names only; values are not shown)", strings.Join(differ, ", ")))
		}
	}
	if c.Protocol != "" && c.Protocol != r.Protocol {
		diffs = append(diffs, fmt.Sprintf("is running protocol: %s, this call asks for %s", r.Protocol, c.Protocol))
	}
	return strings.Join(diffs, "; and ")
}

// envDiff names the variables whose values differ, or that one side has
// and the other does not. A record without per-variable fingerprints (an
// older daemon) can only name every variable of both sides.
func (r *Record) envDiff(c *Caller) []string {
	keys := map[string]bool{}
	if r.EnvHashes == nil || c.EnvHashes == nil {
		for _, k := range append(append([]string{}, r.EnvKeys...), c.EnvKeys...) {
			keys[k] = true
		}
	} else {
		for k, h := range r.EnvHashes {
			if c.EnvHashes[k] != h {
				keys[k] = true
			}
		}
		for k := range c.EnvHashes {
			if _, ok := r.EnvHashes[k]; !ok {
				keys[k] = true
			}
		}
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = append(out, "(no variable names differ; the set of values does)")
	}
	return out
}

// hashDiff names the keys whose fingerprints differ between two sides, or
// that one side has and the other does not.
func hashDiff(a, b map[string]string) []string {
	var out []string
	for k, h := range a {
		if b[k] != h {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// relative says whether a command line depends on the directory it runs
// in: the executable is a relative path (./srv, bin/srv), or a word names a
// relative path (./srv.js, ../x) or a file that exists relative to one of
// dirs (node srv.js). A package name such as
// @modelcontextprotocol/server-everything is not a path in either
// directory, so npx … runs the same server anywhere.
func relative(command string, args []string, dirs ...string) bool {
	if command != "" && !filepath.IsAbs(command) && strings.ContainsRune(command, filepath.Separator) {
		return true
	}
	for _, a := range args {
		if a == "" || strings.HasPrefix(a, "-") || filepath.IsAbs(a) {
			continue
		}
		if a == "." || a == ".." || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") {
			return true
		}
		for _, d := range dirs {
			if d == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(d, a)); err == nil {
				return true
			}
		}
	}
	return false
}
