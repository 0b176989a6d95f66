package wire

// child is the running target as run-mcp holds it: started directly, or on
// Linux through a supervisor that can reach what the target's own children
// started after they left its process group.
type child interface {
	// pid is the target's process id (never the supervisor's).
	pid() int
	// terminate asks the target's process group to stop (SIGTERM).
	terminate()
	// killAll kills the target and everything it started.
	killAll()
	// wait blocks until the target has ended and says how.
	wait() Exit
	// release, after wait, makes sure nothing the target started is left. It
	// is bounded: a process the kernel will not let die (uninterruptible
	// sleep) does not hang run-mcp.
	release()
}
