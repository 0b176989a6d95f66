package safesocket

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// peerIsUs checks the peer's uid from SO_PEERCRED.
func peerIsUs(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || credErr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}

// checkOwner refuses a directory another user owns.
func checkOwner(dir string, info os.FileInfo) error {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("the session directory %s belongs to another user (uid %d); refusing to use it", dir, st.Uid)
	}
	return nil
}
