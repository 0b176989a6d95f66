package wire

import (
	"errors"
	"syscall"
)

// killGroup has no process group to signal on Windows: the caller falls back
// to signalling the server's own process. Only SIGKILL means anything there
// (os.Process.Signal terminates the process), so a stop closes stdin, waits
// out its grace periods and then kills the server.
func killGroup(int, syscall.Signal) error {
	return errors.New("process groups cannot be signalled on Windows")
}

// platformSignalName: Windows has no signals beyond the common ones.
func platformSignalName(syscall.Signal) (string, bool) { return "", false }
