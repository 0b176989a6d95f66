//go:build unix

package wire

import (
	"io"
	"syscall"
)

// tryRead reads what the pipe holds now, in one read(2) that never waits:
// n is 0 and err nil when it holds nothing (EAGAIN), err io.EOF at its
// end. tried is false when r is no pipe it can reach that way. r must be
// in non-blocking mode (a pipe whose read takes a deadline is).
func tryRead(r io.Reader, buf []byte) (n int, tried bool, err error) {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return 0, false, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	// Control, not Read: RawConn.Read fails at once while the read
	// deadline is past, which is when the drain asks. The kept end of the
	// pipe is non-blocking, so read(2) here never waits.
	var rerr error
	cerr := rc.Control(func(fd uintptr) {
		for {
			k, e := syscall.Read(int(fd), buf)
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
			case e != nil:
				rerr = e
			case k == 0:
				rerr = io.EOF
			default:
				n = k
			}
			return
		}
	})
	if cerr != nil {
		return 0, true, cerr
	}
	return n, true, rerr
}
