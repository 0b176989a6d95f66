// Package wire owns the bytes and processes under every connection: spawning a
// target in its own process group with a whitelisted environment, the stdio
// transport that splits the child's stdout into JSON-RPC messages and stdout
// noise, the stderr ring, the sentence that says how a process ended, HTTP
// targets, and the protocol era chosen at connect.
//
// Of run-mcp's own packages wire imports only internal helpers that import
// nothing of run-mcp's (internal/supervise, internal/jsonscan). It never writes to the process's
// stdout (that is the agent server's protocol channel), and it never leaves a
// child running: every Process it starts is stopped by Stop or dies with
// run-mcp through the parent-death signal.
package wire
