//go:build unix

package safesocket

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionTop is the first level Dir creates under TMPDIR.
func sessionTop(tmp string) string { return filepath.Join(tmp, fmt.Sprintf("run-mcp-%d", os.Getuid())) }

func modeOf(t *testing.T, p string) os.FileMode {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestASymlinkIsRefusedAndNotFollowed(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	victim := filepath.Join(tmp, "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, sessionTop(tmp)); err != nil {
		t.Fatal(err)
	}
	_, err := Dir()
	if err == nil || !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), sessionTop(tmp)) || !strings.Contains(err.Error(), "Remove it") {
		t.Fatalf("want a refusal naming the link and what to do, got %v", err)
	}
	if m := modeOf(t, victim); m != 0o755 {
		t.Errorf("the link's target was chmodded to %v", m)
	}
	if _, err := os.Stat(filepath.Join(victim, "sessions")); err == nil {
		t.Errorf("a directory was created through the link")
	}
}

func TestAWorldWritableDirectoryIsRefused(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	top := sessionTop(tmp)
	if err := os.Mkdir(top, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(top, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := Dir()
	if err == nil || !strings.Contains(err.Error(), "other users can write") || !strings.Contains(err.Error(), "mode 0777") {
		t.Fatalf("want a refusal naming the mode, got %v", err)
	}
	if m := modeOf(t, top); m != 0o777 {
		t.Errorf("the refused directory was chmodded to %v", m)
	}
}

func TestAnOwnReadableDirectoryIsClosed(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	top := sessionTop(tmp)
	if err := os.Mkdir(top, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	if m := modeOf(t, top); m != 0o700 {
		t.Errorf("own directory left at %v, want 0700", m)
	}
}

// Another user's directory: as root, one owned by nobody (uid 65534).
func TestAnotherUsersDirectoryIsRefusedUntouched(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to create a directory owned by another user (CI runs as root)")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	top := sessionTop(tmp)
	if err := os.Mkdir(top, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(top, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Dir()
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") || !strings.Contains(err.Error(), "uid 65534") ||
		!strings.Contains(err.Error(), "set TMPDIR to a directory only you can write") {
		t.Fatalf("want a refusal naming the owner, got %v", err)
	}
	// A planted link owned by that user, to a directory of ours.
	if err := os.Remove(top); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(tmp, "mine")
	if err := os.Mkdir(mine, 0o750); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(mine, 0o750)
	if err := os.Symlink(mine, top); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(top, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("want the planted link refused, got %v", err)
	}
	if m := modeOf(t, mine); m != 0o750 {
		t.Errorf("the victim's directory was chmodded to %v", m)
	}
}

func TestPrivateFilesDoNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "main.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenPrivate(link, os.O_WRONLY|os.O_CREATE|os.O_TRUNC); err == nil {
		f.Close()
		t.Fatal("OpenPrivate followed a symbolic link")
	}
	if _, err := ReadPrivate(link, 100); err == nil {
		t.Fatal("ReadPrivate followed a symbolic link")
	}
	rec := filepath.Join(dir, "main.json")
	if err := os.Symlink(target, rec); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(rec, []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs" {
		t.Errorf("WritePrivate wrote through a link: %q", b)
	}
	if info, _ := os.Lstat(rec); !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Errorf("record %v, want a regular 0600 file", info.Mode())
	}
}
