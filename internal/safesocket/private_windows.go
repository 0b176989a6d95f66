package safesocket

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// noFollow: Windows has no O_NOFOLLOW. The session directory is created
// with an access list that admits only its user, and checked to be theirs,
// so no other user can plant a link inside it.
const noFollow = 0

// privateDir makes the session directory d a directory only this user can use: created with an
// owner-only, protected access list, or an existing one checked with Lstat
// (a link or junction is refused, never followed) and for its owner; an
// own directory gets the owner-only access list again, so one created
// under a shared TMP is closed to other users.
func privateDir(d string) error { return PrivateDir(d, "session directory") }

// PrivateDir is privateDir for another of run-mcp's per-user directories
// (what names it in messages): the output directory uses it on Windows,
// where mode bits say nothing (every directory reads 0777).
func PrivateDir(d, what string) error {
	sid, err := currentSID()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString(ownerOnly(sid.String(), true))
	if err != nil {
		return fmt.Errorf("build the session directory's access list: %w", err)
	}
	p, err := windows.UTF16PtrFromString(d)
	if err != nil {
		return fmt.Errorf("the %s %s is not a valid path: %w", what, d, err)
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	if err := windows.CreateDirectory(p, sa); err != nil && !errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
		return fmt.Errorf("create the %s %s: %w. Check that the temp directory (%s) exists and is writable, or set TMP", what, d, err, os.TempDir())
	}
	info, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("check the %s %s: %w", what, d, err)
	}
	switch {
	case info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return fmt.Errorf("refusing the %s %s: it is a link or junction, not a directory; another user may have planted it to redirect run-mcp's files. Remove it (rmdir %s) and run again", what, d, d)
	case !info.IsDir():
		return fmt.Errorf("refusing the %s %s: it is not a directory. Remove it and run again", what, d)
	}
	got, err := windows.GetNamedSecurityInfo(d, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("read the owner of the %s %s: %w", what, d, err)
	}
	owner, _, err := got.Owner()
	if err != nil || owner == nil {
		return fmt.Errorf("read the owner of the %s %s: %v", what, d, err)
	}
	if !owner.Equals(sid) {
		return fmt.Errorf("refusing the %s %s: it belongs to another user (owner %s; you are %s), who may have created it to read or replace run-mcp's files. Remove it (as its owner or an administrator) and run again, or carry on without it: set TMP to a directory only you can write, and run again", what, d, owner, sid)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("build the session directory's access list: %w", err)
	}
	if err := windows.SetNamedSecurityInfo(d, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("restrict the %s %s to you: %w", what, d, err)
	}
	return nil
}
