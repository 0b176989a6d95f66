// Command relay is a benchmark floor: the least a program between an MCP
// client and its server can do. It starts the server given as its arguments
// (with the environment run-mcp gives a target) and copies lines both ways,
// one goroutine per direction, decoding nothing. The agent rows of make bench run it beside the direct connection
// and run-mcp, so the cost of having any process in between (two more pipe
// hops per call, and the wake-ups they take) is measured, not assumed.
//
//	relay CMD [ARG...]
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: relay CMD [ARG...]")
		os.Exit(64)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Env = floorenv.Target()
	c.Stderr = os.Stderr
	in, err := c.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := c.Start(); err != nil {
		fail(err)
	}
	go func() {
		copyLines(in, os.Stdin)
		_ = in.Close()
	}()
	copyLines(os.Stdout, out)
	_ = c.Wait()
}

// copyLines writes each line of r to w as soon as it is read.
func copyLines(w io.Writer, r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(1)
}
