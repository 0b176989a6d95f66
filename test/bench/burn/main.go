// Command burn keeps one CPU busy until its stdin reaches end of file (its
// parent, make bench's report, closes it or exits), so that a measure can be
// taken with other processes competing for the CPUs: the A/B rows of make
// bench run each speed device at idle and beside two of these.
//
//	burn < PIPE
package main

import (
	"io"
	"os"
	"runtime"
)

func main() {
	runtime.GOMAXPROCS(1) // one CPU's worth, however many there are
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	x := uint64(1)
	for {
		// A loop the compiler cannot drop; the runtime preempts it, so the
		// reader above still runs when stdin closes.
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			os.Stdout.WriteString("unreachable\n")
		}
	}
}
