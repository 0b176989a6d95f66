//go:build !windows

package cli

import (
	"os"
	"syscall"
)

const exeSuffix = ""

// runDemo replaces run-mcp with the demo server, so the process its caller
// started (and may signal, wait for, or supervise) is the server itself.
func runDemo(bin string, args []string) error {
	err := syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
	return exitf(ExitUnavail, "could not start the demo server %s: %v. Check that it is an executable %s for this platform, or reinstall run-mcp", bin, err, demoName)
}
