// Package demoserver is the MCP server bundled into run-mcp as the
// `run-mcp demo-server` subcommand: something for newcomers to point run-mcp
// at, and a well-behaved (or, on request, badly behaved) target for run-mcp's
// own tests.
//
// It owns the demo catalogue (tools, the demo://counter resource, the
// demo://echo/{text} template and the greet prompt), the misbehaviour flags
// that let tests stage crashes, noise, floods and hangs, and the glue that
// serves all of it over stdio in both protocol eras (the 2025 initialize
// handshake and 2026-07-28 server/discover), which mcp-go does for us.
//
// What it must never do:
//   - write anything to stdout except protocol frames, the one exception being
//     the deliberate noise (--stdout-noise, the noise tool);
//   - keep state in package variables: everything lives in one value per Serve
//     call, so tests can serve, stop and serve again;
//   - run two Serve calls at once in one process: mcp-go keeps a single stdio
//     session per process, so concurrent calls would share it.
package demoserver
