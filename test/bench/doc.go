// Package bench measures the built binary against the floor: a bare
// standard-library MCP client doing the same spawn-initialize-list-stop, a
// hello-world Go binary for process start, and warm sessions. Timing lives
// here (make bench), never in the assertions of the test suites.
package bench
