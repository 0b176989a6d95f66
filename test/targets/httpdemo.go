package targets

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// StartHTTPDemo runs `bin demo-server --http 127.0.0.1:0` and returns the URL
// it listens on; the server is stopped when the test ends.
func StartHTTPDemo(tb testing.TB, bin string) string {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := exec.CommandContext(ctx, bin, "demo-server", "--http", "127.0.0.1:0")
	c.WaitDelay = 5 * time.Second
	stderr, err := c.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cancel(); _ = c.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://\S+/mcp`).FindString(sc.Text()); m != "" {
				select {
				case urls <- m:
				default:
				}
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(30 * time.Second):
		tb.Fatal("the HTTP demo server never said where it listens")
	}
	return ""
}
