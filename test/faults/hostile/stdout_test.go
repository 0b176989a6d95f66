//go:build unix

package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// A host that closes its end of the agent server's stdout, and keeps stdin
// open, can hear nothing more: the server ends at its next write (Go ends
// a program on SIGPIPE from descriptor 1), and its targets with it.
func TestAHostThatClosesStdoutEndsTheServerAndItsTargets(t *testing.T) {
	stderr := &lockedBuffer{}
	cmd := exec.Command(bin, "-o", t.TempDir())
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	ask := func(id int, method string, params any) string {
		t.Helper()
		p, _ := json.Marshal(params)
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, p)
		for lines.Scan() {
			var m struct {
				ID *int `json:"id"`
			}
			if json.Unmarshal(lines.Bytes(), &m) == nil && m.ID != nil && *m.ID == id {
				return lines.Text()
			}
		}
		t.Fatalf("no answer to %s: %v\nstderr:\n%s", method, lines.Err(), stderr.String())
		return ""
	}
	ask(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "hostile", "version": "1"}})
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	answer := ask(2, "tools/call", map[string]any{"name": "connect_to_mcp",
		"arguments": map[string]any{"name": "demo", "command": bin, "args": []string{"demo-server"}}})
	m := regexp.MustCompile(`PID: (\d+)`).FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("no PID in the connect answer: %s", answer)
	}
	target, _ := strconv.Atoi(m[1])

	_ = stdout.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"call_mcp_primitive",`+
		`"arguments":{"connection":"demo","type":"tool","name":"echo","arguments":{"message":"anyone?"}}}}`)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(patience):
		_ = cmd.Process.Kill()
		<-waited
		t.Fatalf("the agent server still ran %s after its host closed stdout\nstderr:\n%s", patience, stderr.String())
	}
	for end := time.Now().Add(patience); syscall.Kill(target, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the target (PID %d) outlived the agent server", target)
		}
	}
}
