package cli

import (
	"os"
	"runtime/debug"
)

// headlessMemoryLimit is the soft memory limit of a headless command (and of
// a session's daemon), which serves one target: the collector works harder
// as the heap nears it, so a large result passing through costs a small
// multiple of its size in peak memory rather than whatever GOGC's doubling
// allows. It is soft: a bigger message still succeeds, with more collection.
//
// The agent server has none: it holds up to a thousand connections, whose
// live heap alone can pass any fixed limit, and a limit below the live heap
// keeps the collector running most of the time (docs/BENCHMARKS.md).
const headlessMemoryLimit = 48 << 20

// limitHeadlessMemory sets headlessMemoryLimit unless the user set GOMEMLIMIT.
func limitHeadlessMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(headlessMemoryLimit)
	}
}
