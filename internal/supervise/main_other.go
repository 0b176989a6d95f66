//go:build !linux

package supervise

import (
	"fmt"
	"os"
)

// Main: only Linux runs targets under a supervisor; nothing starts these
// helpers elsewhere.
func Main() int {
	fmt.Fprintf(os.Stderr, "run-mcp: %s and %s are helpers run-mcp starts on Linux only; they are not commands.\n", Arg, ExecArg)
	return 64
}
