//go:build !linux

package spinread

import "os"

// Tries says a Reader here tries a pipe before it parks: not outside Linux.
const Tries = false

// read reads once into p: elsewhere than on Linux a read never tries, and
// Expect only opens a window nobody uses.
func (r *Reader) read(p []byte) (int, error) { return r.f.Read(p) }

func nonBlocking(*os.File) bool { return false }
