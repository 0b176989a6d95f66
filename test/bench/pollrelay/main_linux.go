package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

// pollFD is struct pollfd from poll.h.
type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1 // POLLIN

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pollrelay CMD [ARG...]")
		os.Exit(64)
	}
	toServer, fromServer, wait, err := start(os.Args[1:])
	if err != nil {
		fail(err)
	}
	// Every wait and copy below is on this thread: no goroutine hands a
	// line to another, and the Go poller is never asked.
	runtime.LockOSThread()
	if err := relay(toServer, fromServer); err != nil {
		fail(err)
	}
	_ = wait()
}

// start runs the server on two pipes whose relay ends stay blocking and out
// of the poller: toServer is its stdin's write end, fromServer its stdout's
// read end.
func start(argv []string) (toServer, fromServer int, wait func() error, err error) {
	var in, out [2]int
	if err := syscall.Pipe2(in[:], syscall.O_CLOEXEC); err != nil {
		return 0, 0, nil, err
	}
	if err := syscall.Pipe2(out[:], syscall.O_CLOEXEC); err != nil {
		return 0, 0, nil, err
	}
	serverIn, serverOut := os.NewFile(uintptr(in[0]), "stdin"), os.NewFile(uintptr(out[1]), "stdout")
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = floorenv.Target()
	c.Stdin, c.Stdout, c.Stderr = serverIn, serverOut, os.Stderr
	err = c.Start()
	_ = serverIn.Close() // the server has its copies
	_ = serverOut.Close()
	if err != nil {
		return 0, 0, nil, err
	}
	return in[1], out[0], c.Wait, nil
}

// relay copies the client's stdin to the server and the server's stdout to
// ours until the server's stdout ends.
func relay(toServer, fromServer int) error {
	fds := []pollFD{{fd: 0, events: pollIn}, {fd: int32(fromServer), events: pollIn}}
	buf := make([]byte, 1<<16)
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		if errno != 0 && errno != syscall.EINTR {
			return errno
		}
		if fds[0].revents != 0 {
			n, err := syscall.Read(0, buf)
			if n <= 0 || err != nil { // the client is gone: the server reads end of file
				_ = syscall.Close(toServer)
				fds[0].fd = -1
			} else if err := writeAll(toServer, buf[:n]); err != nil {
				return err
			}
		}
		if fds[1].revents != 0 {
			n, err := syscall.Read(fromServer, buf)
			if n <= 0 || err != nil {
				return nil
			}
			if err := writeAll(1, buf[:n]); err != nil {
				return err
			}
		}
	}
}

func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return err
		}
		b = b[max(n, 0):]
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pollrelay:", err)
	os.Exit(1)
}
