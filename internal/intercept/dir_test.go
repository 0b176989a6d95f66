package intercept_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

// privateTemp points the temp directory at a fresh one, so the default
// output directory can be planted without touching the real /tmp.
func privateTemp(t *testing.T) (tmp, parent string) {
	t.Helper()
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return tmp, filepath.Dir(intercept.DefaultOutDir())
}

func wantRefused(t *testing.T, err error, path string, found ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the output directory was accepted; want it refused")
	}
	msg := err.Error()
	for _, want := range append([]string{"refusing the output directory " + path + ":", "remove it", "--out-dir"}, found...) {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

func TestDefaultOutDirIsCreatedPrivatePerUser(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are not Unix modes on Windows")
	}
	_, parent := privateTemp(t)
	i, err := intercept.New(intercept.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i.OutDir() != filepath.Join(parent, "out") {
		t.Errorf("OutDir = %q, want %q", i.OutDir(), filepath.Join(parent, "out"))
	}
	for _, d := range []string{parent, i.OutDir()} {
		info, err := os.Lstat(d)
		if err != nil {
			t.Fatal(err)
		}
		if !info.IsDir() || info.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want a directory with mode 0700", d, info.Mode())
		}
	}
	if got, err := intercept.PrepareDir(""); err != nil || got != i.OutDir() {
		t.Errorf("PrepareDir(\"\") = %q, %v; want %q, nil (an existing private directory is fine)", got, err, i.OutDir())
	}
}

func TestDefaultOutDirRefusesASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	tmp, parent := privateTemp(t)
	victim := filepath.Join(tmp, "attacker-chosen")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, parent); err != nil {
		t.Fatal(err)
	}
	_, err := intercept.New(intercept.Options{})
	wantRefused(t, err, parent, "symbolic link")
	if names := dirNames(t, victim); len(names) != 0 {
		t.Errorf("run-mcp wrote into the symlink's target: %v", names)
	}
	if info, _ := os.Stat(victim); info.Mode().Perm() != 0o755 {
		t.Errorf("the symlink's target was chmodded to %v", info.Mode().Perm())
	}
}

func TestDefaultOutDirRefusesAWorldWritableLevel(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes are not Unix modes on Windows")
	}
	for _, level := range []string{"parent", "out"} {
		t.Run(level, func(t *testing.T) {
			_, parent := privateTemp(t)
			d := parent
			if level == "out" {
				if err := os.Mkdir(parent, 0o700); err != nil {
					t.Fatal(err)
				}
				d = filepath.Join(parent, "out")
			}
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
			_, err := intercept.New(intercept.Options{})
			wantRefused(t, err, d, "others can write to it (mode 0777)")
			if info, _ := os.Lstat(d); info.Mode().Perm() != 0o777 {
				t.Errorf("run-mcp changed the mode of %s to %v; it must refuse, not repair", d, info.Mode().Perm())
			}
		})
	}
}

func TestDefaultOutDirRefusesAFile(t *testing.T) {
	_, parent := privateTemp(t)
	if err := os.WriteFile(parent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := intercept.PrepareDir("")
	wantRefused(t, err, parent, "not a directory (found a regular file)")
}

func TestDefaultOutDirRefusesAnotherUsersDirectory(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a directory to another user (uid 65534)")
	}
	_, parent := privateTemp(t)
	if err := os.Mkdir(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(parent, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := intercept.New(intercept.Options{})
	wantRefused(t, err, parent, "it belongs to uid 65534, not to you")
}

func TestDefaultPathNamedExplicitlyIsCheckedToo(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	tmp, parent := privateTemp(t)
	if err := os.Symlink(tmp, parent); err != nil {
		t.Fatal(err)
	}
	_, err := intercept.New(intercept.Options{OutDir: filepath.Join(parent, "out")})
	wantRefused(t, err, parent, "symbolic link")
}

func TestExplicitOutDirIsTheUsersChoice(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(base, "link")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if _, err := intercept.New(intercept.Options{OutDir: link}); err != nil {
			t.Errorf("a symlink the user chose was refused: %v", err)
		}
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := intercept.PrepareDir(file)
	if err == nil || !strings.Contains(err.Error(), file+" is not a directory (found a regular file)") || !strings.Contains(err.Error(), "--out-dir") {
		t.Errorf("a regular file as --out-dir: %v", err)
	}
}
