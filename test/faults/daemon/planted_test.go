//go:build !windows

package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Another user plants the session directory: a symbolic link to a
// directory of the victim's, or a directory open to everyone. run-mcp
// refuses, names the path and what to do, and changes nothing.
func TestAPlantedSessionDirectoryIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to plant files owned by another user (uid 65534); CI runs as root")
	}
	t.Parallel()
	s := newSession(t, "victim")
	top := filepath.Join(s.tmp, fmt.Sprintf("run-mcp-%d", os.Getuid()))
	chosen := filepath.Join(s.tmp, "victims-own-dir")
	if err := os.Mkdir(chosen, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(chosen, 0o755)
	if err := os.Symlink(chosen, top); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(top, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sessions"}, {"call", "echo", "message=x", "--session", "victim", "--", bin, "demo-server"}} {
		r := s.run(args...)
		// The session directory (exit 1) or, for a call, the output
		// directory beside it (a usage error, 64) is refused first.
		if (r.code != 1 && r.code != 64) || !strings.Contains(r.stderr, top) || !strings.Contains(r.stderr, "symbolic link") || !strings.Contains(strings.ToLower(r.stderr), "remove it") || !strings.Contains(r.stderr, "set TMPDIR to a directory only you can write") {
			t.Errorf("a planted link must be refused, naming it:\n%s", r)
		}
	}
	if info, _ := os.Stat(chosen); info.Mode().Perm() != 0o755 {
		t.Errorf("the victim's directory was chmodded to %v", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(chosen); len(entries) != 0 {
		t.Errorf("run-mcp wrote into the link's target: %v", entries)
	}

	// A world-writable directory owned by the other user.
	if err := os.Remove(top); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(top, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(top, 0o777)
	if err := os.Lchown(top, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	r := s.run("sessions")
	if r.code != 1 || !strings.Contains(r.stderr, top) || !strings.Contains(r.stderr, "uid 65534") || !strings.Contains(r.stderr, "mode 0777") ||
		!strings.Contains(r.stderr, "set TMPDIR to a directory only you can write") {
		t.Errorf("another user's 0777 directory must be refused, naming owner and mode:\n%s", r)
	}
	if info, _ := os.Lstat(top); info.Mode().Perm() != 0o777 {
		t.Errorf("the planted directory was chmodded to %v", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(top); len(entries) != 0 {
		t.Errorf("run-mcp used the planted directory: %v", entries)
	}
}
