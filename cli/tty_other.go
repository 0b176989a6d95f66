//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package cli

import "os"

// isTerminal guesses from the file's mode where the terminal settings
// cannot be asked for (Windows consoles are character devices; so is NUL,
// which is why the real check is used where there is one).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0 && f.Name() != os.DevNull
}
