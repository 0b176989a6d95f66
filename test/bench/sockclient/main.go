// Command sockclient is the floor of the warm sessioned call: the least a
// client of a running session must do. It connects to the session daemon's
// Unix socket, sends the request line it is given (make bench captures the
// very line `run-mcp call ... --session NAME` sends), reads the one-line
// reply, prints the reply's stdout and stderr and exits with its code, as
// run-mcp's client does. Standard library only; no run-mcp code.
//
//	sockclient SOCKET REQUEST-LINE
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sockclient SOCKET REQUEST-LINE")
		os.Exit(2)
	}
	c, err := net.Dial("unix", os.Args[1])
	if err != nil {
		fail(err)
	}
	if _, err := c.Write([]byte(os.Args[2] + "\n")); err != nil {
		fail(err)
	}
	line, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n')
	if err != nil {
		fail(fmt.Errorf("read the reply: %w", err))
	}
	_ = c.Close()
	var reply struct {
		Code   int    `json:"code"`
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		fail(fmt.Errorf("the reply is not JSON: %w", err))
	}
	os.Stdout.WriteString(reply.Stdout)
	os.Stderr.WriteString(reply.Stderr)
	os.Exit(reply.Code)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sockclient:", err)
	os.Exit(1)
}
