package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// rawSession speaks JSON-RPC over a command's stdio and returns the exact
// bytes of each result, as a host's transport sees them.
type rawSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func newRawSession(t *testing.T, name string, args ...string) *rawSession {
	t.Helper()
	cmd := exec.Command(name, args...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawSession{cmd: cmd, in: in, out: bufio.NewReader(out)}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	s.result(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}})
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// result sends a request and returns the bytes of its "result" value.
func (s *rawSession) result(t *testing.T, id int, method string, params any) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	fmt.Fprintln(s.in, string(b))
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.ID == id && m.Result != nil {
			i := strings.Index(line, `"result":`) + len(`"result":`)
			return line[i : i+len(m.Result)]
		}
	}
}

// server-everything writes annotations after type and text, an order
// mcp-go's types would not reproduce: a re-encoded result would differ.
func TestUntouchedResultIsByteIdentical(t *testing.T) {
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	args := map[string]any{"messageType": "success", "includeImage": false}
	direct := newRawSession(t, cmd[0], cmd[1:]...).result(t, 2, "tools/call", map[string]any{"name": "get-annotated-message", "arguments": args})

	via := newRawSession(t, bin)
	targetArgs := make([]any, 0, len(cmd)-1)
	for _, a := range cmd[1:] {
		targetArgs = append(targetArgs, a)
	}
	via.result(t, 2, "tools/call", map[string]any{"name": "connect_to_mcp", "arguments": map[string]any{"command": cmd[0], "args": targetArgs}})
	got := via.result(t, 3, "tools/call", map[string]any{"name": "call_mcp_primitive",
		"arguments": map[string]any{"type": "tool", "name": "get-annotated-message", "arguments": args}})
	if got != direct {
		t.Fatalf("the result changed on its way through run-mcp:\n direct %s\n    via %s", direct, got)
	}
}
