// Package agent holds black-box tests of run-mcp's agent MCP server: the
// binary is built once, started with no subcommand, and driven over stdio by
// an mcp-go client that declares elicitation and sampling, exactly as a
// coding agent's host would. The targets are the bundled demo server
// (`run-mcp demo-server`) and, where installed, server-everything.
package agent
