// Package earlytest tests, in a test binary of its own, how a spawn treats a
// target handed to the spare supervisor during run-mcp's start
// (internal/prespawn): there is one such spare per process, so the test
// cannot share a binary with wire's others, whose spawns would take it.
package earlytest
