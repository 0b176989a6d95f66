// Package mcpfront is the agent-facing MCP server: run-mcp with no
// subcommand. It registers the twelve tools, checks their arguments against
// closed schemas, relays the target's elicitation and sampling to the host,
// forwards notifications and batches of stderr as logging messages, and
// formats the replies an agent reads.
//
// stdout carries only the protocol, written through one locked writer so a
// frame is never torn; operator lines go to stderr prefixed "run-mcp:". It
// owns no target state: everything about a connection is asked of the
// engine (package actors).
package mcpfront
