//go:build !windows

package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// host drives the agent server over raw JSON-RPC lines, so a test can send
// what no well-behaved client library would (a 65 MB line).
type host struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	msgs   chan map[string]any
	done   chan struct{}
	wmu    sync.Mutex
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startHost runs the agent server with TMPDIR=tmp and completes the
// handshake.
func startHost(t *testing.T, tmp string, args ...string) *host {
	t.Helper()
	return startHostWith(t, tmp, map[string]any{}, args...)
}

// startHostWith is startHost for a host that declares caps.
func startHostWith(t *testing.T, tmp string, caps map[string]any, args ...string) *host {
	t.Helper()
	h := &host{t: t, stderr: &lockedBuffer{}, msgs: make(chan map[string]any, 100), done: make(chan struct{})}
	h.cmd = exec.Command(bin, args...)
	h.cmd.Dir = t.TempDir()
	h.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	h.cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go h.readAll(stdout)
	t.Cleanup(func() {
		_ = h.stdin.Close()
		waited := make(chan error, 1)
		go func() { waited <- h.cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(patience):
			_ = h.cmd.Process.Kill()
			<-waited
			t.Errorf("the agent server did not exit after its stdin closed")
		}
		<-h.done
		if t.Failed() {
			t.Logf("run-mcp stderr:\n%s", h.stderr.String())
		}
	})
	h.send(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": caps, "clientInfo": map[string]any{"name": "hostile", "version": "1"}}})
	h.await(0)
	h.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return h
}

func (h *host) readAll(r io.Reader) {
	defer close(h.done)
	defer close(h.msgs)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			h.msgs <- m
		}
	}
}

func (h *host) send(msg any) {
	h.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.writeRaw(append(b, '\n'))
}

func (h *host) writeRaw(b []byte) {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	if _, err := h.stdin.Write(b); err != nil {
		h.t.Errorf("write to the agent server: %v", err)
	}
}

// await returns the response with this id (compared as JSON text).
func (h *host) await(id any) map[string]any {
	h.t.Helper()
	want, _ := json.Marshal(id)
	deadline := time.After(patience)
	for {
		select {
		case m, ok := <-h.msgs:
			if !ok {
				h.t.Fatalf("the agent server closed stdout before answering id %s\nstderr:\n%s", want, h.stderr.String())
			}
			if _, isReq := m["method"]; isReq {
				continue
			}
			got, _ := json.Marshal(m["id"])
			if string(got) == string(want) {
				return m
			}
		case <-deadline:
			h.t.Fatalf("no answer to id %s within %s: the host would wait forever\nstderr:\n%s", want, patience, h.stderr.String())
		}
	}
}

var nextID = struct {
	sync.Mutex
	n int
}{n: 100}

// call calls one of run-mcp's tools and returns the reply's text and
// whether it is an error (a tool error or a JSON-RPC error).
func (h *host) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	nextID.Lock()
	nextID.n++
	id := nextID.n
	nextID.Unlock()
	h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	m := h.await(id)
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprint(e["message"]), true
	}
	res, _ := m["result"].(map[string]any)
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if cm, ok := c.(map[string]any); ok {
			b.WriteString(fmt.Sprint(cm["text"]))
		}
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}
