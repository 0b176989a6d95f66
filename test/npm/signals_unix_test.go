//go:build !windows

package npm

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A host that stops its server by signalling the launcher's pid stops
// run-mcp too, and the launcher ends as run-mcp did (the agent server exits
// 0 on SIGTERM).
func TestLauncherForwardsSIGTERM(t *testing.T) {
	nodeBin := node(t)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, nodeBin, launcher)
	c.Env = append(os.Environ(), "RUN_MCP_BINARY="+bin)
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Our own pipe, so reads can have a deadline: a run-mcp left running
	// after the launcher died would otherwise hold stdout open for ever.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	c.Stdout = w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer stdin.Close()
	_ = stdout.SetReadDeadline(time.Now().Add(patience))
	// The agent server answers through the launcher: stdio is passed through.
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"npm-test","version":"1"}}}`+"\n")
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("no initialize answer through the launcher: %q, %v", line, err)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// run-mcp holds the same stdout: EOF means it has exited too.
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Errorf("stdout stayed open after SIGTERM (%v): run-mcp outlived the launcher", err)
	}
	if err := c.Wait(); err != nil {
		t.Errorf("launcher after SIGTERM: %v, want exit 0 as run-mcp exits", err)
	}
	if len(rest) != 0 {
		t.Errorf("stdout after the answer: %q, want nothing", rest)
	}
}

// A binary killed by a signal makes the launcher die of the same signal.
func TestLauncherReraisesTheSignalTheBinaryDiedOf(t *testing.T) {
	nodeBin := node(t)
	self := filepath.Join(t.TempDir(), "dies")
	if err := os.WriteFile(self, []byte("#!/bin/sh\nkill -KILL $$\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, nodeBin, launcher)
	c.Env = append(os.Environ(), "RUN_MCP_BINARY="+self)
	err := c.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("launcher: %v, want it killed by SIGKILL", err)
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("launcher ended with %v, want killed by SIGKILL as its binary was", ee)
	}
}
