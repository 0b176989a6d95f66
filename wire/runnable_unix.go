//go:build !windows

package wire

import "os"

// runnable says whether a file may be run as a command: an execute bit.
func runnable(info os.FileInfo) bool { return info.Mode()&0o111 != 0 }

// notRunnableHint adds to the refusal what makes a file runnable: nothing
// on Unix, where an execute bit is what everyone expects.
func notRunnableHint() string { return "" }
