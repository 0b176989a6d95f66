// Command pollrelay is a benchmark floor beside test/bench/relay: the same
// line copying between an MCP client and its server, done the way a C
// program would do it, by one locked thread that waits on both pipes with
// ppoll(2) and reads and writes them with plain system calls, outside the
// Go scheduler. The agent latency row runs it to show what any process in
// between costs at the least on the machine, apart from the cost of a Go
// program's goroutines and poller (test/bench/relay). Linux only; elsewhere
// it says so and exits.
//
//	pollrelay CMD [ARG...]
package main
