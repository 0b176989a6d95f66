package intercept_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

const attackerText = "ATTACKER-TEXT "

// plant writes text to a fresh file and renames it over name in dir, as a
// user who can write to the directory would swap a result: the new file is
// a different inode even when the old one is gone.
func plant(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	tmp := filepath.Join(dir, ".planted")
	if err := os.WriteFile(tmp, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, mode); err != nil { // beat the umask
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func wantNoAttackerText(t *testing.T, i *intercept.Interceptor, id, found string) {
	t.Helper()
	got, err := i.Read(id, 0, 0)
	if err == nil {
		t.Fatalf("Read(%s) returned %q; want it refused", id, got)
	}
	msg := err.Error()
	if strings.Contains(msg, attackerText) {
		t.Errorf("the error quotes the planted file: %q", msg)
	}
	for _, want := range []string{"refusing to read result " + id, found, "--out-dir"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

func TestReadRefusesASwappedResult(t *testing.T) {
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	text := strings.Repeat("the server's own text ", 10)
	spill(t, i, text)
	// Same length, so only the file's identity gives the swap away.
	plant(t, dir, "result_r1.txt", strings.Repeat("x", len(text)-len(attackerText))+attackerText, 0o600)
	wantNoAttackerText(t, i, "r1", "a different file from the one run-mcp wrote")
}

func TestReadRefusesAResultChangedInPlace(t *testing.T) {
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	spill(t, i, strings.Repeat("y", 100))
	f, err := os.OpenFile(filepath.Join(dir, "result_r1.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(attackerText); err != nil {
		t.Fatal(err)
	}
	f.Close()
	wantNoAttackerText(t, i, "r1", "changed since (100 bytes then, 114 now)")
}

func TestReadRefusesASymlinkedResult(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	spill(t, i, strings.Repeat("z", 100))
	elsewhere := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(elsewhere, []byte(attackerText), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "result_r1.txt")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, path); err != nil {
		t.Fatal(err)
	}
	wantNoAttackerText(t, i, "r1", "a symbolic link")
	// A link under an id no one spilled yet is refused the same way.
	if err := os.Symlink(elsewhere, filepath.Join(dir, "result_r5.txt")); err != nil {
		t.Fatal(err)
	}
	wantNoAttackerText(t, i, "r5", "a symbolic link")
}

func TestReadOfAnEarlierSessionsFile(t *testing.T) {
	dir := t.TempDir()
	first := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	spill(t, first, strings.Repeat("kept ", 20))
	second := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	if got, err := second.Read("r1", 0, 5); err != nil || !strings.HasSuffix(got, "\nkept ") {
		t.Errorf("our own file from an earlier session: %q, %v", got, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	plant(t, dir, "result_r7.txt", attackerText, 0o666)
	wantNoAttackerText(t, second, "r7", "a file others can write to (mode 0666)")
}

func TestReadRefusesAnotherUsersResultFile(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user (uid 65534)")
	}
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	path := plant(t, dir, "result_r3.txt", attackerText, 0o600)
	if err := os.Lchown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	wantNoAttackerText(t, i, "r3", "a file owned by uid 65534")
	// Prune leaves another user's file alone even when it is old.
	old := mustOld(t, path)
	if n, _ := intercept.Prune(dir, intercept.PruneAge, old); n != 0 {
		t.Errorf("Prune removed %d file(s) of another user", n)
	}
}

// mustOld returns a time at which path counts as old enough to prune.
func mustOld(t *testing.T, path string) time.Time {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.ModTime().Add(2 * intercept.PruneAge)
}
