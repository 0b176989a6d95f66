//go:build unix

package oauth

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkDir refuses a token directory another user could read or plant: a
// link, not a directory, another user's, or one others can open. When
// create is set (saving) it is made if missing, and one of this user's
// that others may open is closed to 0700, as the session directory is
// (internal/safesocket); reading refuses it, saying how to close it.
func checkDir(d string, create bool) error {
	info, err := os.Lstat(d)
	if os.IsNotExist(err) && create {
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			return fmt.Errorf("create the token directory %s: %w", d, err)
		}
		info, err = os.Lstat(d)
	}
	if err != nil {
		return err
	}
	owner := ownerOf(info)
	found := fmt.Sprintf("owner uid %d, mode %04o", owner, info.Mode().Perm())
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("refusing the token directory %s: it is a symbolic link (%s), which another user may have planted to read run-mcp's tokens. Remove it (rm %s) and authorize again", d, found, d)
	case !info.IsDir():
		return fmt.Errorf("refusing the token directory %s: it is not a directory (%s). Remove it and authorize again", d, found)
	case owner != os.Getuid():
		return fmt.Errorf("refusing the token directory %s: it belongs to another user (%s; you are uid %d). Remove it (as its owner or root) and authorize again", d, found, os.Getuid())
	case info.Mode().Perm()&0o077 != 0 && create:
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("the token directory %s is open to other users (%s) and cannot be closed: %w", d, found, err)
		}
	case info.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("refusing the token directory %s: other users can open it (%s), and it holds credentials. Fix: chmod 700 %s", d, found, d)
	}
	return nil
}

// openPrivate opens a token file for reading, never through a link, and
// refuses one that is not a regular file of this user's or that anyone
// else may read or write.
func openPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, err
		}
		return nil, fmt.Errorf("refusing the token file %s: %w (a symbolic link is never followed); remove it and authorize again", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	found := fmt.Sprintf("owner uid %d, mode %04o", ownerOf(info), info.Mode().Perm())
	switch {
	case !info.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("refusing the token file %s: it is not a regular file (%s). Remove it and authorize again", path, found)
	case ownerOf(info) != os.Getuid():
		f.Close()
		return nil, fmt.Errorf("refusing the token file %s: it belongs to another user (%s), who may have planted it. Remove it (rm %s) and authorize again", path, found, path)
	case info.Mode().Perm()&0o077 != 0:
		f.Close()
		return nil, fmt.Errorf("refusing the token file %s: other users can read or write it (%s), and it holds credentials. Fix: chmod 600 %s (and consider the token leaked: run-mcp logout, then authorize again)", path, found, path)
	}
	return f, nil
}

func ownerOf(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}
