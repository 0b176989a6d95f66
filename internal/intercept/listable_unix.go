//go:build unix

package intercept

import (
	"os"
	"syscall"
)

// listable opens dir for reading and closes it: what listing it will need.
// A raw open, since os.Open also sets the descriptor up for the poller
// (five more system calls) and New runs on every sessioned call.
func listable(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return syscall.Close(fd)
}
