package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// sessionName is what a session may be called: it names files on disk.
var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName says whether name may name a session.
func ValidName(name string) bool { return sessionName.MatchString(name) && len(name) <= 200 }

// maxRecord bounds what is read of a record file.
const maxRecord = 1 << 20

// Record is what a session remembers on disk, beside its socket. Values of
// environment variables are secrets: only their names and a hash are kept,
// enough to refuse a call that names different ones.
type Record struct {
	Name      string `json:"name"`
	Socket    string `json:"socket"`
	DaemonPid int    `json:"daemon_pid"`
	// DaemonStart and ServerStart are the processes' start times (Linux:
	// clock ticks since boot, /proc/<pid>/stat field 22; 0 elsewhere), so a
	// reused pid is not taken for the daemon or its server.
	DaemonStart uint64    `json:"daemon_start,omitempty"`
	Pid         int       `json:"pid"`
	ServerStart uint64    `json:"server_start,omitempty"`
	Target      string    `json:"command"`
	Command     string    `json:"exec"`
	Args        []string  `json:"args"`
	URL         string    `json:"url,omitempty"`
	Cwd         string    `json:"cwd"`
	EnvKeys     []string  `json:"env_keys"`
	EnvHash     string    `json:"env_hash"`
	Protocol    string    `json:"protocol"`
	StartedAt   time.Time `json:"started_at"`
	IdleMinutes float64   `json:"idle_timeout"`
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
		return nil, fmt.Errorf("the session record %s is damaged (%v); close-session %s removes it", RecordPath(dir, name), err, name)
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
		EnvHash: EnvHash(cfg.Spec.Env), Protocol: cfg.Era.String(), StartedAt: time.Now(), IdleMinutes: idle}
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

// Mismatch says how the server a caller names differs from what the
// session was started with ("" when it does not): a different command, the
// same relative command from another directory, different env, or another
// protocol. A caller that names nothing matches.
func (r *Record) Mismatch(c *Caller) string {
	if c == nil {
		return ""
	}
	var diffs []string
	if c.Target != "" {
		if c.Target != r.Target {
			diffs = append(diffs, fmt.Sprintf("command: the session runs %q, this call names %q", r.Target, c.Target))
		} else if !c.HTTP && !filepath.IsAbs(c.Command) && strings.ContainsRune(c.Command, filepath.Separator) && c.Cwd != r.Cwd {
			diffs = append(diffs, fmt.Sprintf("directory: the relative command %q was started in %s, this call is in %s", r.Command, r.Cwd, c.Cwd))
		}
	}
	if c.EnvGiven && c.EnvHash != r.EnvHash {
		diffs = append(diffs, fmt.Sprintf("env: the session has %s, this call passes %s (names only; values are not shown)",
			keysOrNone(r.EnvKeys), keysOrNone(c.EnvKeys)))
	}
	if c.Protocol != "" && c.Protocol != r.Protocol {
		diffs = append(diffs, fmt.Sprintf("protocol: the session uses %s, this call asks for %s", r.Protocol, c.Protocol))
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

func keysOrNone(keys []string) string {
	if len(keys) == 0 {
		return "no variables"
	}
	return strings.Join(keys, ", ")
}
