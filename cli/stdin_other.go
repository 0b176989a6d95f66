//go:build !unix

package cli

import "os"

// pollableStdin: the poller takes pipes on Unix only (see stdin_unix.go).
func pollableStdin(f *os.File) *os.File { return f }
