// Command hoprelay is a benchmark floor beside test/bench/relay: the same
// line copying, done through the goroutines an agent call passes in
// run-mcp's engine, and nothing else. The host's reader and the target's
// reader each post a line to one actor goroutine's mailbox; the actor writes
// a host line to the target itself and hands a target line to a third
// goroutine, which writes it to the host (mcpfront's reader, wire's read
// loop, the connection's actor, mcpfront's events consumer). Nothing is
// decoded. The agent latency row runs it to show what the design's three
// goroutine hand-offs cost on the machine, apart from the work run-mcp does
// per call.
//
//	hoprelay CMD [ARG...]
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

// line is one line read, and which side it came from.
type line struct {
	fromTarget bool
	text       []byte
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hoprelay CMD [ARG...]")
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
	mailbox := make(chan line, 64)
	events := make(chan []byte, 64)
	hostDone := make(chan struct{})
	go func() {
		readLines(os.Stdin, false, mailbox)
		close(hostDone)
	}()
	go readLines(out, true, mailbox)
	written := make(chan struct{})
	go func() {
		defer close(written)
		for text := range events {
			if _, err := os.Stdout.Write(text); err != nil {
				return
			}
		}
	}()
	for {
		select {
		case l := <-mailbox:
			if l.fromTarget {
				events <- l.text
			} else if _, err := in.Write(l.text); err != nil {
				fail(err)
			}
		case <-hostDone:
			_ = in.Close()
			_ = c.Wait()
			close(events)
			<-written
			return
		}
	}
}

// readLines posts each line of r to mailbox as soon as it is read.
func readLines(r io.Reader, fromTarget bool, mailbox chan<- line) {
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			mailbox <- line{fromTarget: fromTarget, text: text}
		}
		if err != nil {
			return
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hoprelay:", err)
	os.Exit(1)
}
