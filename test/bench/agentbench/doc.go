// Package agentbench measures the agent MCP server: start-up to the first
// answered tools/list, the latency run-mcp adds to a call, peak memory while
// relaying a large result, and many named connections at once. Timing lives
// here, never in assertions of the test suites.
package agentbench
