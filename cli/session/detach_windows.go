package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// detachedAttr starts the session daemon in its own process group with a
// console of its own that is never shown (CREATE_NO_WINDOW): it is detached
// from the caller's console (its Ctrl-C and its closing do not reach the
// daemon), and the console servers the daemon starts share that hidden
// console instead of each opening a window, as they would under a daemon
// with none at all (DETACHED_PROCESS).
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
}

// kill ends pid with TerminateProcess, on a handle that is checked to be
// the recorded process (its creation time), so a reused pid is never
// killed. Windows has no signal that asks a process to stop: the gentle
// step is the daemon's own close request, over its pipe; sig is ignored.
func kill(pid int, start uint64, _ syscall.Signal) error {
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
			return nil // gone
		}
		return fmt.Errorf("open process %d to stop it: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if got, alive := handleStart(h); !alive || (start != 0 && got != start) {
		return nil // gone, or the pid now names another process
	}
	if err := windows.TerminateProcess(h, 1); err != nil {
		return fmt.Errorf("TerminateProcess(%d): %w", pid, err)
	}
	return nil
}

// stopSteps: TerminateProcess is the only step Windows has after the close
// request.
func stopSteps() []stopStep { return []stopStep{{syscall.SIGKILL, "TerminateProcess"}} }

// byHand is the command a person runs to stop pid when run-mcp could not.
func byHand(pid int) string { return fmt.Sprintf("taskkill /F /PID %d", pid) }

// passStatus hands the child the status pipe's write end as its stdout:
// Windows passes no descriptors beyond the three standard ones
// (exec.Cmd.ExtraFiles is not supported there).
func passStatus(c *exec.Cmd, w *os.File) { c.Stdout = w }

// StatusFile is the daemon's end of its status pipe (stdout, see
// passStatus).
func StatusFile() *os.File { return os.Stdout }
