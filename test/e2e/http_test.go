package e2e

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startHTTPDemo runs the demo server over Streamable HTTP and returns its URL;
// it is stopped when the test ends.
func startHTTPDemo(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := exec.CommandContext(ctx, bin, "demo-server", "--http", "127.0.0.1:0")
	c.WaitDelay = 5 * time.Second
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = c.Wait() })
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`http://\S+/mcp`).FindString(sc.Text()); m != "" {
				urls <- m
			}
		}
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(patience):
		t.Fatal("the HTTP demo server never said where it listens")
	}
	return ""
}

func TestHTTPTarget(t *testing.T) {
	url := startHTTPDemo(t)
	r := run(t, "call", "echo", "message=over-http", "--raw", "--", url)
	if r.code != 0 || !strings.Contains(r.stdout, "echo: over-http") {
		t.Fatalf("call over HTTP: %s", r)
	}
	if !strings.Contains(r.stderr, "no stderr, no exit code and no stdout-noise check") {
		t.Errorf("an HTTP target must say what it cannot give:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, `"stderr_unavailable"`) {
		t.Errorf("--raw over HTTP must say why stderr is empty:\n%s", r.stdout)
	}
	r = run(t, "list-tools", "--", "http://127.0.0.1:1/mcp")
	if r.code != 69 || !strings.Contains(r.stderr, "Failed to connect") {
		t.Errorf("an unreachable URL must exit 69 with the reason:\n%s", r)
	}
}
