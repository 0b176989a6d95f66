// Command forkwrap is a benchmark floor for the one-shot rows: the least a
// process standing between a client and the server it starts costs at
// start. run-mcp must have its supervisor (a Go process that forks the
// target and outlives run-mcp) running before the target can start, so
// the one-shot listing row also runs the bare client with forkwrap in front
// of its target: a Go program that starts CMD on its own stdio, passes
// SIGTERM on to it, and exits as it exits.
//
//	forkwrap CMD [ARG...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: forkwrap CMD [ARG...]")
		os.Exit(64)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "forkwrap:", err)
		os.Exit(1)
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		for s := range term {
			_ = c.Process.Signal(s)
		}
	}()
	err := c.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	}
	if err != nil {
		os.Exit(1)
	}
}
