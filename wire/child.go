package wire

// child is the running target as run-mcp holds it: started directly, or on
// Linux by the supervisor, which can reach what the target's own children
// started after they left its process group, and what it left behind when
// it exited.
type child interface {
	// pid is the target's process id (never the supervisor's).
	pid() int
	// terminate asks the target to stop: SIGTERM to its process group, and
	// once it has exited, to what it left behind.
	terminate()
	// killAll kills the target and everything it started.
	killAll()
	// wait blocks until the target's own process has ended and says how.
	// What it started may live on (a launcher's server).
	wait() Exit
	// goneCh is closed once nothing of the target is left running, as far
	// as run-mcp can tell: where it cannot see its descendants, once the
	// target itself has ended.
	goneCh() <-chan struct{}
	// release, after killAll, forgets the target. It is bounded: a process
	// the kernel will not let die (uninterruptible sleep) does not hang
	// run-mcp.
	release()
	// serving lists the processes holding the pipe whose inode is ino (the
	// target's stdout), nil when this platform cannot tell.
	serving(ino uint64) []int
}
