package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// linesHost drives run-mcp's stdio with hand-written JSON-RPC lines, for what
// a client library cannot express: several requests written in one write,
// in a known order, before any answer (an agent issuing tool calls
// together), and a cancel sent while a request waits.
type linesHost struct {
	in      io.WriteCloser
	mu      sync.Mutex
	replies map[string]map[string]any
	methods []map[string]any // requests and notifications run-mcp sent, in order
	arrived chan struct{}
	read    chan struct{}
}

func startRaw(t *testing.T) *linesHost {
	t.Helper()
	return startRawWith(t, map[string]any{})
}

// startRawWith is startRaw with the client capabilities the host declares.
func startRawWith(t *testing.T, capabilities map[string]any) *linesHost {
	t.Helper()
	cmd := exec.Command(bin, "-o", t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start run-mcp: %v", err)
	}
	h := &linesHost{in: in, replies: map[string]map[string]any{}, arrived: make(chan struct{}, 1), read: make(chan struct{})}
	go h.readLoop(out)
	t.Cleanup(func() {
		_ = in.Close()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(callTimeout):
			_ = cmd.Process.Kill()
			<-waited
			t.Errorf("run-mcp did not exit after its stdin closed")
		}
		<-h.read
		if t.Failed() {
			t.Logf("run-mcp stderr:\n%s", stderr.String())
		}
	})
	h.send(t, map[string]any{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": map[string]any{"name": "raw-host", "version": "1"}}})
	h.await(t, "init")
	h.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return h
}

func (h *linesHost) readLoop(out io.Reader) {
	defer close(h.read)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var msg map[string]any
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		id, hasID := msg["id"]
		h.mu.Lock()
		if _, isReq := msg["method"]; !hasID || isReq {
			h.methods = append(h.methods, msg) // notifications (stderr relay, logging) and requests to the host
		} else {
			h.replies[fmt.Sprint(id)] = msg
		}
		h.mu.Unlock()
		select {
		case h.arrived <- struct{}{}:
		default:
		}
	}
}

// send writes every message in one write, one line each, in order.
func (h *linesHost) send(t *testing.T, msgs ...map[string]any) {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(h.in, b.String()); err != nil {
		t.Fatalf("write to run-mcp: %v", err)
	}
}

// await returns the reply to id, failing the test if none comes in time.
func (h *linesHost) await(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.After(callTimeout)
	for {
		h.mu.Lock()
		msg, ok := h.replies[id]
		h.mu.Unlock()
		if ok {
			return msg
		}
		select {
		case <-h.arrived:
		case <-h.read:
			t.Fatalf("run-mcp closed its stdout before answering %s", id)
		case <-deadline:
			t.Fatalf("no answer to %s within %s", id, callTimeout)
		}
	}
}

// awaitMethod returns the first message run-mcp sent with a method that
// match accepts, failing the test if none comes in time.
func (h *linesHost) awaitMethod(t *testing.T, what string, match func(msg map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(callTimeout)
	for {
		h.mu.Lock()
		for _, msg := range h.methods {
			if match(msg) {
				h.mu.Unlock()
				return msg
			}
		}
		h.mu.Unlock()
		select {
		case <-h.arrived:
		case <-h.read:
			t.Fatalf("run-mcp closed its stdout before it sent %s", what)
		case <-deadline:
			t.Fatalf("run-mcp did not send %s within %s", what, callTimeout)
		}
	}
}

// toolCall is a tools/call request of run-mcp's tool with id.
func toolCall(id, name string, args map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}}
}

// resultText is the joined text of a tools/call reply and its isError.
func resultText(t *testing.T, msg map[string]any) (string, bool) {
	t.Helper()
	res, ok := msg["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a result: %v", msg)
	}
	var parts []string
	items, _ := res["content"].([]any)
	for _, c := range items {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			parts = append(parts, fmt.Sprint(m["text"]))
		}
	}
	isErr, _ := res["isError"].(bool)
	return strings.Join(parts, "\n"), isErr
}
