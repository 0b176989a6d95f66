// Package wire owns the bytes and processes under every connection: spawning a
// target (on Linux under the Spawner's one supervisor process, in a session
// of its own) with a whitelisted environment, the stdio transport that splits
// the child's stdout into JSON-RPC messages and stdout noise (Stdio), run-mcp's
// own Streamable HTTP client (HTTP), the stderr ring, the sentence that says
// how a process ended, and the protocol era chosen at connect. Both channels
// keep no state their owner needs: everything a target said reaches the
// owner (the connection's actor) as Inbound values on its sink.
//
// Of run-mcp's own packages wire imports only internal/supervise, which
// imports nothing of run-mcp's; of mcp-go only its protocol types. It never writes to the process's stdout (that
// is the agent server's protocol channel), and it never leaves a child
// running: every Process it starts, and everything that Process started, is
// stopped by Stop or dies with run-mcp (the supervisor kills it).
//
// A binary that links wire and starts targets must run supervise.Main when
// supervise.Invoked(os.Args) says so, first thing in main or TestMain: the
// supervisor and the exec trampoline are that binary, re-executed.
package wire
