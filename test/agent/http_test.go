package agent

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestHTTPTargetFromTheAgent(t *testing.T) {
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
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		url = regexp.MustCompile(`http://\S+/mcp`).FindString(sc.Text())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	h := start(t)
	text := mustText(t, h, "connect_to_mcp", map[string]any{"command": url})
	if !strings.Contains(text, "Transport: streamable-http") || !strings.Contains(text, "no stderr") {
		t.Fatalf("the connect reply must say what an HTTP target cannot give:\n%s", text)
	}
	if got := mustText(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}}); !strings.Contains(got, "echo: hi") {
		t.Fatalf("call over HTTP: %s", got)
	}
	if got := mustText(t, h, "get_mcp_server_stderr", map[string]any{}); !strings.Contains(got, "no process") {
		t.Fatalf("stderr of an HTTP target must say there is none: %s", got)
	}
}
