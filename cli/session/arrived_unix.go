//go:build unix

package session

import (
	"bytes"
	"errors"
	"net"
	"syscall"
)

// readArrived reads what has arrived on c without waiting for more, until
// a newline, the end of the stream or limit bytes; whole says a line (or
// the last of the stream) is complete in what it read.
func readArrived(c net.Conn, limit int) (got []byte, whole bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	buf := make([]byte, 4096)
	for len(got) <= limit {
		var n int
		var rerr error
		// Returning true ends the read at once: an empty socket is
		// EAGAIN, not a wait in the poller.
		if err := raw.Read(func(fd uintptr) bool {
			n, rerr = syscall.Read(int(fd), buf)
			return true
		}); err != nil {
			return got, false
		}
		switch {
		case errors.Is(rerr, syscall.EINTR):
			continue
		case rerr != nil:
			return got, false
		case n == 0:
			return got, len(got) > 0 // the daemon answered and hung up
		}
		got = append(got, buf[:n]...)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return got, true
		}
	}
	return got, false
}
