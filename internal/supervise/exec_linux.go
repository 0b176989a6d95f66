package supervise

import (
	"encoding/binary"
	"errors"
	"os"
	"syscall"
)

// execErrFD is the exec trampoline's report pipe: closed by a successful
// execve (close-on-exec), or given the errno of a failed one.
const execErrFD = 3

// execTarget is the exec trampoline: it makes itself a child subreaper and
// becomes the target. The attribute survives execve, so while the target
// lives, whatever its descendants leave behind (a double fork's orphan, a
// daemon that called setsid) reparents to the target, inside its own
// subtree, instead of to the supervisor, where it would mix with the
// orphans of every other target. Its process group, parent-death signal,
// directory and environment were set when the supervisor forked it.
func execTarget(args []string) int {
	if len(args) < 2 || !isPipe(execErrFD) {
		return notACommand()
	}
	syscall.CloseOnExec(execErrFD)
	becomeSubreaper()
	err := syscall.Exec(args[0], args[1:], os.Environ())
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(errno))
	_, _ = syscall.Write(execErrFD, b[:])
	return exit(127)
}
