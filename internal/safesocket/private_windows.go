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

// privateDir makes d a directory only this user can use: created with an
// owner-only, protected access list, or an existing one checked with Lstat
// (a link or junction is refused, never followed) and for its owner; an
// own directory gets the owner-only access list again, so one created
// under a shared TMP is closed to other users.
func privateDir(d string) error {
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
		return fmt.Errorf("the session directory %s is not a valid path: %w", d, err)
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	if err := windows.CreateDirectory(p, sa); err != nil && !errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
		return fmt.Errorf("create the session directory %s: %w. Check that the temp directory (%s) exists and is writable, or set TMP", d, err, os.TempDir())
	}
	info, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("check the session directory %s: %w", d, err)
	}
	switch {
	case info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return fmt.Errorf("refusing the session directory %s: it is a link or junction, not a directory; another user may have planted it to redirect run-mcp's files. Remove it (rmdir %s) and run again", d, d)
	case !info.IsDir():
		return fmt.Errorf("refusing the session directory %s: it is not a directory. Remove it and run again", d)
	}
	got, err := windows.GetNamedSecurityInfo(d, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("read the owner of the session directory %s: %w", d, err)
	}
	owner, _, err := got.Owner()
	if err != nil || owner == nil {
		return fmt.Errorf("read the owner of the session directory %s: %v", d, err)
	}
	if !owner.Equals(sid) {
		return fmt.Errorf("refusing the session directory %s: it belongs to another user (owner %s; you are %s), who may have created it to read or replace run-mcp's files. Remove it (as its owner or an administrator) and run again", d, owner, sid)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("build the session directory's access list: %w", err)
	}
	if err := windows.SetNamedSecurityInfo(d, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("restrict the session directory %s to you: %w", d, err)
	}
	return nil
}
