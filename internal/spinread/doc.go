// Package spinread reads a pipe on which a message is due in a moment by
// trying it for a short while before the goroutine parks.
//
// Each message run-mcp relays crosses a pipe to a process that sleeps until
// it comes. On a virtual machine the wake-up of a sleeping thread costs more
// than the message: tens of microseconds, about as long as a fast server
// takes to answer. A call relayed through a process that parks between
// messages pays two more of them than a direct call. A reader that keeps
// trying the pipe for a few hundred microseconds, when something it was
// just told about (a request sent, an answer written) makes a message due,
// takes the message as it lands and pays none.
//
// The trying is bounded on three sides: a reader tries only after Expect
// (never on its own), for at most the window Expect gave and never past the
// owner's deadline, and only while it holds its Budget. A Budget lets one
// reader in a process try at a time; none when the process has a single
// CPU, where trying would keep the sender itself from it; and none unless
// the Go runtime runs on one P, since with more each hand-off from one
// trying reader to the next wakes an idle runtime thread (NewBudget). Past
// the window the read parks in the runtime's poller as any read does.
// Only Linux's reads try; elsewhere a Reader reads as os.File does.
//
// A reader parked in the poller when Expect comes is woken by a read
// deadline in the past, which the reader takes as that and not as a
// timeout; the owner's own deadline goes through SetReadDeadline, so that
// the one stays apart from the other.
package spinread
