package session

import (
	"golang.org/x/sys/windows"
)

// stillActive is what GetExitCodeProcess reports for a running process.
const stillActive = 259

// procStart reads a process's creation time (100 ns units since 1601, from
// GetProcessTimes), so a reused pid is not taken for the recorded process.
// ok is false when the pid is not a live process. A process this user may
// not query (another user's) is alive with an unknown start (0).
func procStart(pid int) (uint64, bool) {
	if pid <= 0 {
		return 0, false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, err == windows.ERROR_ACCESS_DENIED //nolint:errorlint // an Errno
	}
	defer windows.CloseHandle(h)
	return handleStart(h)
}

// handleStart is procStart on an open process handle.
func handleStart(h windows.Handle) (uint64, bool) {
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil || code != stillActive {
		return 0, false
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, true
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), true
}

// Stopped says pid is stopped by a signal or a debugger; only Linux can tell
// (its /proc), so here it never is.
func Stopped(int) bool { return false }
