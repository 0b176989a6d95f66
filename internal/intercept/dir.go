package intercept

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultOutDir is where files go when Options.OutDir is empty:
// <tmp>/run-mcp-<uid>/out (the SID for the uid on Windows). The parent is per user (the session directory
// <tmp>/run-mcp-<uid>/sessions sits beside it) because the temp directory is
// shared: a name every user would pick lets another user create it first and
// swap the files an agent later reads back.
func DefaultOutDir() string {
	return filepath.Join(userTempDir(), "out")
}

// userTempDir is this user's private directory under the temp directory.
func userTempDir() string {
	return filepath.Join(os.TempDir(), "run-mcp-"+userTag())
}

// PrepareDir resolves dir as New would (empty means DefaultOutDir), creates
// it and checks it, so a front end can refuse a bad directory before it
// spawns anything. It returns the absolute directory.
func PrepareDir(dir string) (string, error) {
	abs, strict, err := resolveDir(dir)
	if err != nil {
		return "", err
	}
	return abs, ensureDir(abs, strict)
}

// resolveDir makes dir absolute and says whether it is the default, which
// gets the strict checks even when the user names it explicitly.
func resolveDir(dir string) (abs string, strict bool, err error) {
	if dir == "" {
		dir = DefaultOutDir()
	}
	abs, err = filepath.Abs(dir)
	if err != nil {
		return "", false, fmt.Errorf("resolving output directory %q: %w; pass an absolute path with --out-dir", dir, err)
	}
	return abs, abs == filepath.Clean(DefaultOutDir()), nil
}

// ensureDir makes sure dir exists and may be used. The default directory
// lives in the shared temp directory, so each of its two levels must be a
// real directory (never a symlink), owned by us and writable by no one else;
// anything else was put there by someone else and is refused, never
// chmodded or followed. A directory the user chose is theirs to pick: it is
// created (0700) when missing and only has to be a directory.
func ensureDir(dir string, strict bool) error {
	if strict {
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := ensurePrivate(d); err != nil {
				return err
			}
		}
		return nil
	}
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating output directory %s: %w; check its permissions or pass another --out-dir", dir, err)
		}
		info, err = os.Stat(dir)
	}
	if err != nil {
		return fmt.Errorf("checking output directory %s: %w; pass another --out-dir", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("output directory %s is not a directory (found %s); pass a directory with --out-dir", dir, describeMode(info))
	}
	return nil
}

// ensurePrivate creates d with mode 0700 unless it exists, then checks what
// is there without following a link. It looks first: the directory is
// there on every use but the first, and this runs on every call.
func ensurePrivate(d string) error {
	if handled, err := platformPrivate(d); handled {
		return err
	}
	info, err := os.Lstat(d)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating output directory %s: %w; check the permissions of %s or pass --out-dir", d, err, filepath.Dir(d))
		}
		info, err = os.Lstat(d)
	}
	if err != nil {
		return fmt.Errorf("checking output directory %s: %w; pass --out-dir to use another directory", d, err)
	}
	if problem := privateProblem(info); problem != "" {
		return fmt.Errorf("refusing the output directory %s: %s, so another user could replace the files run-mcp saves and reads back; remove it (run-mcp recreates it, private to you), pass --out-dir, or carry on with a temp directory of your own: set TMPDIR to a directory only you can write (mkdir -m 700 ~/.tmp && export TMPDIR=~/.tmp)", d, problem)
	}
	return nil
}

// privateProblem says what makes info unfit to hold our files, or "".
func privateProblem(info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "it is a symbolic link"
	case !info.IsDir():
		return "it is not a directory (found " + describeMode(info) + ")"
	}
	if owner, ok := foreignOwner(info); ok {
		return "it belongs to " + owner + ", not to you"
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("others can write to it (mode %04o)", info.Mode().Perm())
	}
	return ""
}

func describeMode(info fs.FileInfo) string {
	switch t := info.Mode().Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a special file"
	}
}
