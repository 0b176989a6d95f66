//go:build !unix

package wire

import "io"

// tryWrite: without write(2) on a non-blocking pipe, writes take the
// ordinary path (tried is false).
func tryWrite(io.Writer, []byte) (n int, tried bool, err error) { return 0, false, nil }
