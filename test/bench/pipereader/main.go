// Command pipereader is the floor of the stderr measure: the least any
// client does with a target's stderr, a plain pipe read into a 64 KiB
// buffer, counting lines. It runs COMMAND, drains its stderr, copies its
// stdout to ours and prints "reader_lines=N" after it.
//
//	pipereader COMMAND [ARG...]
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pipereader COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Env = floorenv.Target()
	cmd.Stdout = os.Stdout
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipereader:", err)
		os.Exit(1)
	}
	lines := 0
	buf := make([]byte, 64<<10)
	for {
		n, err := stderr.Read(buf)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "pipereader:", err)
			os.Exit(1)
		}
	}
	if err := cmd.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "pipereader:", err)
		os.Exit(1)
	}
	fmt.Printf("reader_lines=%d\n", lines)
}
