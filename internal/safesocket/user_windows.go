package safesocket

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// currentSID is the SID of the user this process runs as, from its token:
// what the session directory, the pipe's name and its access list name.
func currentSID() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("read the current user's SID from the process token: %w; sessions need it to restrict the named pipe to you. Run the command without --session", err)
	}
	return tu.User.Sid.Copy()
}

// userTag names this user in the session directory: the SID (a user name
// may be reused across domains; a SID is not).
func userTag() (string, error) {
	sid, err := currentSID()
	if err != nil {
		return "", err
	}
	return sid.String(), nil
}

// ownerOnly is a security descriptor, in SDDL, owned by sid with a
// protected DACL (nothing inherited from the parent) whose one entry grants
// sid full access: no other user, group or Everyone gets any. inherit makes
// the entry apply to what is created inside (for a directory).
func ownerOnly(sid string, inherit bool) string {
	flags := ""
	if inherit {
		flags = "OICI"
	}
	return "O:" + sid + "D:P(A;" + flags + ";GA;;;" + sid + ")"
}

// onlyUser checks a security descriptor the kernel holds: owned by sid,
// with a DACL (none would admit everyone) whose every allowing entry names
// sid. It is how a pipe of ours is told from one someone else created
// under the same name.
func onlyUser(sd *windows.SECURITY_DESCRIPTOR, sid *windows.SID) error {
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("read its owner: %w", err)
	}
	if owner == nil || !owner.Equals(sid) {
		return fmt.Errorf("it is owned by %v, not by you (%s)", owner, sid)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return fmt.Errorf("it has no access list, so it admits everyone (%v)", err)
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return fmt.Errorf("read its access list: %w", err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE {
			continue // a deny entry takes nothing from us
		}
		if who := (*windows.SID)(unsafe.Pointer(&ace.SidStart)); !who.Equals(sid) {
			return fmt.Errorf("its access list admits %s as well as you", who)
		}
	}
	return nil
}

// UserTag names this user in run-mcp's per-user directories (the SID), for
// the output directory beside the session directory.
func UserTag() (string, error) { return userTag() }
