package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// maxClaim bounds what is read of a claim file.
const maxClaim = 64 << 10

// Claim is what the command starting a session writes in the session's
// claim file (<name>.starting) while its server starts: who starts it
// (Pid), what it starts, and how long it waits for it. A command that
// attaches meanwhile waits for the start instead of failing with "is not
// running", and `sessions` lists the session as starting.
type Claim struct {
	Pid int `json:"pid"`
	// DaemonPid is the daemon's, once it is spawned (0 before).
	DaemonPid   int       `json:"daemon_pid,omitempty"`
	Target      string    `json:"command"`
	Cwd         string    `json:"cwd"`
	EnvKeys     []string  `json:"env_keys"`
	Protocol    string    `json:"protocol"`
	IdleMinutes float64   `json:"idle_timeout"`
	StartedAt   time.Time `json:"started_at"`
	// WaitMS is how long the starter waits for its daemon to report: the
	// start is over, one way or the other, by StartedAt plus that.
	WaitMS int64 `json:"wait_ms"`
}

// Until is when the start this claim announces is over at the latest.
func (c *Claim) Until() time.Time { return c.StartedAt.Add(time.Duration(c.WaitMS) * time.Millisecond) }

// claimPath is a session's claim file.
func claimPath(dir, name string) string { return filepath.Join(dir, name+".starting") }

// ClaimStart makes one command the starter of a session when several race
// to start it: the others wait for its record and attach. A claim older
// than limit, or whose claimant is gone, is taken as abandoned. claim says
// what this command starts (its Pid, StartedAt and WaitMS are filled in).
func ClaimStart(dir, name string, limit time.Duration, claim Claim) (unlock func(), rec *Record, err error) {
	lock := claimPath(dir, name)
	deadline := time.Now().Add(limit)
	for {
		if rec, _ := LoadRecord(dir, name); rec != nil {
			return nil, rec, nil
		}
		err := writeClaim(lock, claim, limit)
		if err == nil {
			// The starter before us may have finished between the two looks.
			if rec, _ := LoadRecord(dir, name); rec != nil {
				_ = os.Remove(lock)
				return nil, rec, nil
			}
			return func() { _ = os.Remove(lock) }, nil, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, nil, errorf(ExitToolError, "claim the start of session %q: %v", name, err)
		}
		if info, serr := os.Lstat(lock); serr == nil && (time.Since(info.ModTime()) > limit || claimantGone(lock)) {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, nil, errorf(ExitToolError, "another command has been starting session %q for %s without finishing; remove %s if no run-mcp is running", name, limit, lock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// writeClaim creates the claim file whole or not at all: written under a
// name of its own, then linked to lock, which fails (os.ErrExist) when
// another command holds the claim. A reader never sees half a claim.
func writeClaim(lock string, claim Claim, limit time.Duration) error {
	claim.Pid, claim.StartedAt, claim.WaitMS = os.Getpid(), time.Now(), limit.Milliseconds()
	b, err := json.Marshal(claim)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", lock, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Link(tmp, lock)
	}
	_ = os.Remove(tmp)
	return werr
}

// readClaim reads a claim file; a claim of an older run-mcp is its
// claimant's pid alone.
func readClaim(lock string) (*Claim, error) {
	b, err := safesocket.ReadPrivate(lock, maxClaim)
	if err != nil {
		return nil, err
	}
	var c Claim
	if json.Unmarshal(b, &c) == nil && c.Pid > 0 {
		return &c, nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return nil, fmt.Errorf("the claim file %s says no pid", lock)
	}
	return &Claim{Pid: pid}, nil
}

// claimantGone says the command that claimed a session's start has exited
// (interrupted mid-start), so its claim can be taken over at once.
func claimantGone(lock string) bool {
	c, err := readClaim(lock)
	return err == nil && !ProcAlive(c.Pid, 0)
}

// noteDaemon adds the daemon's pid to this command's claim, for `sessions`.
func noteDaemon(dir, name string, pid int) {
	lock := claimPath(dir, name)
	c, err := readClaim(lock)
	if err != nil || c.Pid != os.Getpid() {
		return
	}
	c.DaemonPid = pid
	if b, err := json.Marshal(c); err == nil {
		_ = safesocket.WritePrivate(lock, b)
	}
}

// Starting is the claim of a session whose start is under way: its
// claimant runs and has not given up yet. nil when there is none.
func Starting(dir, name string) *Claim {
	c, err := readClaim(claimPath(dir, name))
	if err != nil || !ProcAlive(c.Pid, 0) || (c.WaitMS > 0 && time.Now().After(c.Until())) {
		return nil
	}
	return c
}

// Startings are the claims of the sessions starting now, by name.
func Startings(dir string) map[string]*Claim {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.starting"))
	out := map[string]*Claim{}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".starting")
		if !ValidName(name) {
			continue
		}
		if c := Starting(dir, name); c != nil {
			out[name] = c
		}
	}
	return out
}

// AwaitStart waits for the start a claim announces, until the claimant
// gives up (Claim.Until) plus Margin: the session's record once it is
// there, or nil when the start ended without one (the server failed to
// start, or its starter was interrupted).
func AwaitStart(dir, name string, c *Claim) *Record {
	until := c.Until().Add(Margin)
	if c.WaitMS <= 0 { // an older run-mcp's claim says no budget
		until = time.Now().Add(time.Minute)
	}
	for {
		if rec, _ := LoadRecord(dir, name); rec != nil {
			return rec
		}
		if Starting(dir, name) == nil || time.Now().After(until) {
			// The claim may go just after the record came.
			rec, _ := LoadRecord(dir, name)
			return rec
		}
		time.Sleep(20 * time.Millisecond)
	}
}
