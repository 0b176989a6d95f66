//go:build unix

package wire

import (
	"io"
	"syscall"
)

// tryWrite writes as much of msg as the pipe takes now, in one pass of
// write(2) calls that never wait; tried is false when w is no pipe it can
// reach that way.
func tryWrite(w io.Writer, msg []byte) (n int, tried bool, err error) {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return 0, false, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	var werr error
	cerr := rc.Write(func(fd uintptr) bool {
		for n < len(msg) {
			k, e := syscall.Write(int(fd), msg[n:])
			if k > 0 {
				n += k
			}
			if e == syscall.EINTR {
				continue
			}
			if e == nil && k == 0 {
				break
			}
			if e != nil {
				if e != syscall.EAGAIN {
					werr = e
				}
				break
			}
		}
		return true // never wait here: the caller finishes a short write
	})
	if cerr != nil {
		return n, true, cerr
	}
	return n, true, werr
}
