//go:build !linux

package wire

import "os"

// childPipe is a pipe with one end for a child process (its stdin when
// childReads, else its stdout or stderr) and the other kept here. Elsewhere
// it is os.Pipe (the Linux version explains why it differs there).
func childPipe(childReads bool) (parent, child *os.File, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	if childReads {
		return w, r, nil
	}
	return r, w, nil
}
