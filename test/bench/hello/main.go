// Command hello prints "hello" and exits. It is the smallest Go program the
// benchmarks spawn, so that the cost of starting any Go process on this
// machine can be told apart from the cost of starting run-mcp itself.
package main

import "os"

func main() {
	_, _ = os.Stdout.WriteString("hello\n")
}
