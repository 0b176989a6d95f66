package agentbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath, err = targets.BuildBinary(dir, "./cmd/run-mcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// host is a bare JSON-RPC client over run-mcp's stdio, as an agent's host
// would be, so the measure is run-mcp's and not a client library's.
type host struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startHost(tb testing.TB, args ...string) *host {
	cmd := exec.Command(binPath, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return &host{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (h *host) send(tb testing.TB, method string, params any) int {
	h.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id, "method": method, "params": params})
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		tb.Fatal(err)
	}
	return h.id
}

func (h *host) notify(tb testing.TB, method string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	if _, err := h.in.Write(append(b, '\n')); err != nil {
		tb.Fatal(err)
	}
}

// next reads one message from run-mcp's stdout.
func (h *host) next(tb testing.TB) map[string]any {
	line, err := h.out.ReadBytes('\n')
	if err != nil {
		tb.Fatalf("run-mcp closed stdout: %v", err)
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		tb.Fatalf("stray line on run-mcp's stdout: %q", line)
	}
	return m
}

// wait reads until the response with id, skipping notifications.
func (h *host) wait(tb testing.TB, id int) map[string]any {
	for {
		m := h.next(tb)
		if v, ok := m["id"].(float64); ok && int(v) == id {
			return m
		}
	}
}

func (h *host) initialize(tb testing.TB) {
	id := h.send(tb, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	h.wait(tb, id)
	h.notify(tb, "notifications/initialized")
}

func (h *host) call(tb testing.TB, tool string, args map[string]any) string {
	id := h.send(tb, "tools/call", map[string]any{"name": tool, "arguments": args})
	m := h.wait(tb, id)
	res, _ := m["result"].(map[string]any)
	if res == nil {
		tb.Fatalf("%s: no result: %v", tool, m)
	}
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if t, ok := c.(map[string]any)["text"].(string); ok {
			b.WriteString(t)
		}
	}
	if res["isError"] == true {
		tb.Fatalf("%s failed: %s", tool, b.String())
	}
	return b.String()
}

func (h *host) close(tb testing.TB) {
	_ = h.in.Close()
	if err := h.cmd.Wait(); err != nil {
		tb.Errorf("run-mcp exited with %v after stdin closed", err)
	}
}

// procStatusKB reads a field such as VmHWM or VmRSS of a process, in KB.
func procStatusKB(tb testing.TB, pid int, field string) int {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		tb.Skipf("no /proc here: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	tb.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}
