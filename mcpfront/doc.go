// Package mcpfront is the agent-facing MCP server: run-mcp with no
// subcommand. It speaks MCP to its host on mcp-go's protocol types alone,
// in both eras (a 2025 host's initialize, a 2026-07-28 host's per-request
// _meta), serves the specification's twelve tools (MCP tasks go through
// call_mcp_primitive and mcp_server_status, not a tool of their own) with
// closed schemas of standard JSON Schema keywords that check their
// arguments (no format: a host that compiles the schemas rejects one it
// does not know), hands call_mcp_primitive to its connection's actor without a
// goroutine per call, puts the target's questions to the host in the host's
// era, relays stderr and forwarded notifications as log messages the host
// asked for, and formats the replies an agent reads.
//
// stdout carries only the protocol, written through one locked writer so a
// frame is never torn; operator lines go to stderr prefixed "run-mcp:". It
// owns no target state: everything about a connection is asked of the
// engine (package actors).
package mcpfront
