package mcpfront

import (
	"os"
	"runtime/debug"
)

// tuneGC trades a little memory for far fewer collections on the agent
// server's hot path, unless the operator set GOGC or GOMEMLIMIT: with the
// default GOGC=100 and a small live heap, a burst of calls spent most of
// its CPU collecting. A soft memory limit keeps the heap near where the
// default would have kept it once the live heap grows.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(gcSoftLimit)
}

const (
	gcPercent   = 400
	gcSoftLimit = 96 << 20
)
