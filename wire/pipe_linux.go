package wire

import (
	"os"
	"syscall"
)

// childPipe is a pipe with one end for a child process (its stdin when
// childReads, else its stdout or stderr) and the other kept here.
//
// os.Pipe puts both ends in non-blocking mode and in the runtime's poller;
// the child's end then has to be made blocking again for the hand-off and
// taken out of the poller when it is closed here, a dozen system calls per
// server start for a descriptor this process never reads or writes. Here
// only the end kept is made non-blocking, which os.NewFile then polls (so
// its deadlines work as with os.Pipe); the child's end stays blocking, as a
// child expects its stdio.
func childPipe(childReads bool) (parent, child *os.File, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	mine, theirs := p[0], p[1]
	if childReads {
		mine, theirs = p[1], p[0]
	}
	if err := syscall.SetNonblock(mine, true); err != nil {
		_ = syscall.Close(p[0])
		_ = syscall.Close(p[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	// The names os.Pipe gives: errors quote them ("write |1: broken pipe").
	return os.NewFile(uintptr(mine), pipeName(mine == p[1])), os.NewFile(uintptr(theirs), pipeName(theirs == p[1])), nil
}

func pipeName(writeEnd bool) string {
	if writeEnd {
		return "|1"
	}
	return "|0"
}
