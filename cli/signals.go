package cli

import (
	"os"
	"syscall"
)

// stopSignals end a command the way a closed stdin ends the agent server:
// every target is stopped before run-mcp exits. SIGHUP is among them because
// that is what an agent's shell sends a command it gives up on (a timeout, a
// closed terminal), and its default action would exit with the targets
// left to their supervisors' last resort.
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }
