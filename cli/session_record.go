package cli

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

// record is what a session remembers on disk, beside its socket. Values of
// environment variables are secrets: only their names and a hash are kept,
// enough to refuse a call that names different ones.
type record struct {
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

func (g *globals) validateSession() error {
	if g.session == "" {
		if g.idleTimeout != 0 {
			return exitf(ExitUsage, "--idle-timeout goes with --session: it closes a session after that many minutes without a command")
		}
		return nil
	}
	if !sessionName.MatchString(g.session) {
		return exitf(ExitUsage, "session name %q must start with a letter or digit and use only letters, digits, '.', '_' and '-'", g.session)
	}
	if g.idleTimeout < 0 {
		return exitf(ExitUsage, "--idle-timeout must be a positive number of minutes (fractions allowed), got %v", g.idleTimeout)
	}
	return nil
}

func recordPath(dir, name string) string { return filepath.Join(dir, name+".json") }
func logPath(dir, name string) string    { return filepath.Join(dir, name+".log") }

func loadRecord(dir, name string) (*record, error) {
	b, err := os.ReadFile(recordPath(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the session record: %w", err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the session record %s is damaged (%v); close-session %s removes it", recordPath(dir, name), err, name)
	}
	return &r, nil
}

func saveRecord(dir string, r *record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := recordPath(dir, r.Name) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write the session record: %w", err)
	}
	return os.Rename(tmp, recordPath(dir, r.Name))
}

func removeRecord(dir, name string) {
	_ = os.Remove(recordPath(dir, name))
}

// newRecord describes the session a config starts.
func newRecord(dir, name string, cfg actors.Config, idle float64) *record {
	r := &record{Name: name, Socket: safesocket.Path(dir, name), Target: cfg.Target(), Command: cfg.Spec.Command,
		Args: cfg.Spec.Args, URL: cfg.URL, Cwd: cfg.Spec.Dir, EnvKeys: wire.EnvKeys(cfg.Spec.Env),
		EnvHash: envHash(cfg.Spec.Env), Protocol: cfg.Era.String(), StartedAt: time.Now(), IdleMinutes: idle}
	if r.Args == nil {
		r.Args = []string{}
	}
	return r
}

// envHash fingerprints env values without keeping them.
func envHash(env map[string]string) string {
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
func (r *record) mismatch(cfg actors.Config, envGiven, protocolGiven bool) string {
	var diffs []string
	if cfg.Target() != r.Target {
		diffs = append(diffs, fmt.Sprintf("command: the session runs %q, this call names %q", r.Target, cfg.Target()))
	} else if cfg.URL == "" && !filepath.IsAbs(cfg.Spec.Command) && strings.ContainsRune(cfg.Spec.Command, filepath.Separator) && cfg.Spec.Dir != r.Cwd {
		diffs = append(diffs, fmt.Sprintf("directory: the relative command %q was started in %s, this call is in %s", r.Command, r.Cwd, cfg.Spec.Dir))
	}
	if envGiven && envHash(cfg.Spec.Env) != r.EnvHash {
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
