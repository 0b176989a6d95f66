// Package wire owns the bytes and processes under every connection: spawning a
// target (on Linux under the Spawner's one supervisor process, in a session
// of its own) with a whitelisted environment, the stdio transport that splits
// the child's stdout into JSON-RPC messages and stdout noise, the stderr ring,
// the sentence that says how a process ended, HTTP targets, and the protocol
// era chosen at connect.
//
// Of run-mcp's own packages wire imports only internal helpers that import
// nothing of run-mcp's (internal/supervise, internal/jsonscan, and for the
// transport internal/spinread). It never writes to the process's stdout (that
// is the agent server's protocol channel), and it never leaves a child
// running: every Process it starts, and everything that Process started, is
// stopped by Stop or dies with run-mcp (the supervisor kills it).
//
// A binary that links wire and starts targets must run supervise.Main when
// supervise.Invoked(os.Args) says so, first thing in main or TestMain: the
// supervisor and the exec trampoline are that binary, re-executed.
package wire
