package supervise

import (
	"fmt"
	"os"
	"syscall"
)

// Main runs the helper os.Args names (see Invoked) and returns its exit
// code, for main to exit with. The supervisor does not return: it exits
// itself once everything below it is gone.
func Main() int {
	if len(os.Args) < 3 {
		return notACommand()
	}
	switch os.Args[2] {
	case Arg:
		return serve()
	case ExecArg:
		return execTarget(os.Args[3:])
	}
	return notACommand()
}

// notACommand is the message for a helper run by hand.
func notACommand() int {
	fmt.Fprintf(os.Stderr, "run-mcp: %s and %s are the helpers run-mcp starts to run servers; they are not commands. "+
		"Run a server with `run-mcp call ... -- <command>` instead.\n", Arg, ExecArg)
	return 64
}

// exit ends the process at once: nothing is left to flush, and a
// race-enabled build (the test binaries, which serve as supervisors too)
// would otherwise sleep a second in its exit hooks.
func exit(code int) int {
	syscall.Exit(code)
	return code
}

// isSocket tells whether fd is open on a socket, as ConnFD is.
func isSocket(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFSOCK
}

// isPipe tells whether fd is open on a pipe.
func isPipe(fd int) bool {
	var st syscall.Stat_t
	return syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from linux/prctl.h (Linux
// 3.4): orphans below this process reparent to it rather than to init.
const prSetChildSubreaper = 36

func becomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// dropTerminal gives up the supervisor's controlling terminal, if run-mcp
// has one, so that no target inherits it: a target cannot read the
// terminal (and be stopped for it, in a background group) or be sent its
// signals. The supervisor leads no session, so this detaches it alone;
// run-mcp keeps its terminal. Without a terminal, /dev/tty does not open.
func dropTerminal() {
	fd, err := syscall.Open("/dev/tty", syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCNOTTY, 0)
	_ = syscall.Close(fd)
}

func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			_ = syscall.Close(fd)
		}
	}
}
