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
func ValidName(name string) bool { return sessionName.MatchString(name) }

// record is what a session remembers on disk, beside its socket. Values of
// environment variables are secrets: only their names and a hash are kept,
// enough to refuse a call that names different ones.
type Record struct {
	Name        string    `json:"name"`
	Socket      string    `json:"socket"`
	DaemonPid   int       `json:"daemon_pid"`
	Pid         int       `json:"pid"`
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

func RecordPath(dir, name string) string { return filepath.Join(dir, name+".json") }
func LogPath(dir, name string) string    { return filepath.Join(dir, name+".log") }

func LoadRecord(dir, name string) (*Record, error) {
	b, err := os.ReadFile(RecordPath(dir, name))
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

func SaveRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := RecordPath(dir, r.Name) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write the session record: %w", err)
	}
	return os.Rename(tmp, RecordPath(dir, r.Name))
}

func RemoveRecord(dir, name string) {
	_ = os.Remove(RecordPath(dir, name))
}

// newRecord describes the session a config starts.
func NewRecord(dir, name string, cfg actors.Config, idle float64) *Record {
	r := &Record{Name: name, Socket: safesocket.Path(dir, name), Target: cfg.Target(), Command: cfg.Spec.Command,
		Args: cfg.Spec.Args, URL: cfg.URL, Cwd: cfg.Spec.Dir, EnvKeys: wire.EnvKeys(cfg.Spec.Env),
		EnvHash: EnvHash(cfg.Spec.Env), Protocol: cfg.Era.String(), StartedAt: time.Now(), IdleMinutes: idle}
	if r.Args == nil {
		r.Args = []string{}
	}
	return r
}

// envHash fingerprints env values without keeping them.
func EnvHash(env map[string]string) string {
	keys := wire.EnvKeys(env)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\x00", k, env[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// mismatch says how cfg differs from what the session was started with
// ("" when it does not): a different command, the same relative command
// from another directory, different env, or another protocol.
func (r *Record) Mismatch(cfg actors.Config, envGiven, protocolGiven bool) string {
	var diffs []string
	if cfg.Target() != r.Target {
		diffs = append(diffs, fmt.Sprintf("command: the session runs %q, this call names %q", r.Target, cfg.Target()))
	} else if cfg.URL == "" && !filepath.IsAbs(cfg.Spec.Command) && strings.ContainsRune(cfg.Spec.Command, filepath.Separator) && cfg.Spec.Dir != r.Cwd {
		diffs = append(diffs, fmt.Sprintf("directory: the relative command %q was started in %s, this call is in %s", r.Command, r.Cwd, cfg.Spec.Dir))
	}
	if envGiven && EnvHash(cfg.Spec.Env) != r.EnvHash {
		diffs = append(diffs, fmt.Sprintf("env: the session has %s, this call passes %s (names only; values are not shown)",
			keysOrNone(r.EnvKeys), keysOrNone(wire.EnvKeys(cfg.Spec.Env))))
	}
	if protocolGiven && cfg.Era.String() != r.Protocol {
		diffs = append(diffs, fmt.Sprintf("protocol: the session uses %s, this call asks for %s", r.Protocol, cfg.Era.String()))
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
