package cli

import "syscall"

// detachedAttr: sessions are refused on Windows before a daemon is started
// (see internal/safesocket), so this only has to compile.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}

// processGone gives a start claim the benefit of the doubt on Windows, where
// sessions are refused anyway.
func processGone(int) bool { return false }
