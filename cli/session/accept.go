package session

import (
	"errors"
	"net"
	"syscall"
)

// transientAccept are the accept failures that pass on their own: out of
// file descriptors or buffers, or a connection the peer aborted.
var transientAccept = []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED, syscall.ENOBUFS,
	syscall.ENOMEM, syscall.EINTR, syscall.EAGAIN, syscall.EPROTO}

// transient says whether a failed accept is worth retrying.
func transient(err error) bool {
	for _, e := range transientAccept {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
