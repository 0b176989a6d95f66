//go:build !unix

package wire

import "io"

// tryRead is unix only: a pipe here (Windows) takes no deadline, so the
// stderr feed never asks for it (StderrFeed.Sync says it cannot tell).
func tryRead(io.Reader, []byte) (int, bool, error) { return 0, false, nil }
