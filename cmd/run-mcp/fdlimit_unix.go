//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// minOpenFiles is the open-file limit below which run-mcp does not try to
// run at all: one server takes about 20 (the Go runtime's own, the poller,
// the server's pipes, the supervisor's socket). Below it the Go runtime
// dies with a stack trace the first time it needs a descriptor for its
// poller, instead of saying what is wrong.
const minOpenFiles = 32

// openFilesTooFew says, in one sentence, that the open-file limit is too
// low for run-mcp, and how to raise it; "" when it is enough. (The Go
// runtime has already raised the soft limit to the hard one.)
func openFilesTooFew() string {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= minOpenFiles {
		return ""
	}
	return fmt.Sprintf("run-mcp: this process may open only %d files (its open-file limit, hard limit %d), and run-mcp needs at least %d "+
		"(about 3 more for each server it runs); raise the limit, e.g. `ulimit -n 1024` in the shell that starts run-mcp "+
		"(LimitNOFILE= for a systemd service), and run it again.", lim.Cur, lim.Max, minOpenFiles)
}
