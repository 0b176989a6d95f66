//go:build unix

package safesocket

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes an open fail on a symbolic link instead of following it.
const noFollow = syscall.O_NOFOLLOW

// privateTmp is how to carry on when a directory of ours in the temp
// directory was taken by someone else: a temp directory of one's own.
const privateTmp = "or carry on without it: set TMPDIR to a directory only you can write (mkdir -m 700 ~/.tmp && export TMPDIR=~/.tmp) and run again"

// privateDir makes d a directory only this user can use: created 0700, or
// an existing one checked with Lstat (never through a link). One that only
// lets others list or enter it is closed to 0700 through a descriptor opened
// without following links, so the chmod cannot land on another directory.
func privateDir(d string) error { return privateDirOr(d, privateTmp) }

// privateDirOr is privateDir whose refusals end with instead: what to do
// when the directory cannot simply be removed.
func privateDirOr(d, instead string) error {
	// Looked at first: it is there on every use but the first, and every
	// sessioned command comes here.
	info, err := os.Lstat(d)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create the session directory %s: %w. Check that the temp directory (%s) exists and is writable, or set TMPDIR", d, err, os.TempDir())
		}
		info, err = os.Lstat(d)
	}
	if err != nil {
		return fmt.Errorf("check the session directory %s: %w", d, err)
	}
	if err := judge(d, info, instead); err != nil {
		return err
	}
	if info.Mode().Perm()&0o077 != 0 {
		return closeDir(d, info)
	}
	return nil
}

// checkPrivate refuses d unless it is a directory of this user's that no
// one else can write, as privateDir leaves it; it creates and changes
// nothing.
func checkPrivate(d, instead string) error {
	info, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("check the session directory %s: %w", d, err)
	}
	return judge(d, info, instead)
}

// judge refuses what another user may have planted at d: a link, something
// else than a directory, a directory of another user or one others can
// write. The refusal says what was found and what to do.
func judge(d string, info fs.FileInfo, instead string) error {
	uid := os.Getuid()
	owner := -1
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		owner = int(st.Uid)
	}
	found := fmt.Sprintf("owner uid %d, mode %04o", owner, info.Mode().Perm())
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(d)
		return fmt.Errorf("refusing the session directory %s: it is a symbolic link to %q (%s), not a directory; another user may have planted it to redirect run-mcp's files. Remove it (rm %s) and run again, %s", d, to, found, d, instead)
	case !info.IsDir():
		return fmt.Errorf("refusing the session directory %s: it is not a directory (%s). Remove it and run again, %s", d, found, instead)
	case owner != uid:
		return fmt.Errorf("refusing the session directory %s: it belongs to another user (%s; you are uid %d), who may have created it to read or replace run-mcp's files. Remove it (as its owner or root) and run again, %s", d, found, uid, instead)
	case info.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("refusing the session directory %s: other users can write to it (%s), so files in it may have been planted. Remove it (rm -r %s) and run again, %s", d, found, d, instead)
	}
	return nil
}

// closeDir sets an own directory that others may list or enter to 0700.
func closeDir(d string, seen fs.FileInfo) error {
	f, err := os.OpenFile(d, os.O_RDONLY|syscall.O_DIRECTORY|noFollow, 0)
	if err != nil {
		return fmt.Errorf("open the session directory %s to restrict it: %w", d, err)
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil || !os.SameFile(now, seen) {
		return fmt.Errorf("refusing the session directory %s: it changed while it was being checked. Run again", d)
	}
	if err := f.Chmod(0o700); err != nil {
		return fmt.Errorf("the session directory %s is open to other users (%v) and cannot be closed: %w", d, seen.Mode().Perm(), err)
	}
	return nil
}
