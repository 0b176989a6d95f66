//go:build !linux

package spinread

import "os"

// read reads once into p: elsewhere than on Linux a read never tries, and
// Expect only opens a window nobody uses.
func (r *Reader) read(p []byte) (int, error) { return r.f.Read(p) }

func nonBlocking(*os.File) bool { return false }
