package session

import (
	"errors"
	"syscall"
)

// detachedAttr: sessions are refused on Windows before a daemon is started
// (internal/safesocket says so at run time), so this only has to compile.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// kill is never reached on Windows, where sessions are refused.
func kill(int, syscall.Signal) error {
	return errors.New("sessions are not supported on Windows in this build")
}

// procStart: no session daemon runs on Windows.
func procStart(int) (uint64, bool) { return 0, false }
