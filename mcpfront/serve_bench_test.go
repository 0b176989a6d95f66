package mcpfront

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"testing"
)

// host drives an agent server served in this process, so that a
// benchmark's allocations are the agent server's own (and this small
// client's); its target, the demo server, is a process of its own.
type host struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	outW   *io.PipeWriter
	nextID int
	done   chan error
}

func startHost(tb testing.TB) *host {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &host{in: inW, out: bufio.NewReaderSize(outR, 1<<20), outW: outW, done: make(chan error, 1)}
	opts := Options{OutDir: tb.TempDir()}
	go func() { h.done <- Serve(context.Background(), opts, inR, outW, io.Discard) }()
	tb.Cleanup(func() {
		_ = h.in.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }() // the server's last frames
		if err := <-h.done; err != nil {
			tb.Errorf("the agent server ended with %v", err)
		}
		_ = h.outW.Close()
	})
	h.request(tb, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}`)
	h.write(tb, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func (h *host) write(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		tb.Fatalf("writing to the agent server: %v", err)
	}
}

// request sends one request and reads up to its answer, passing over the
// notifications before it; it fails on an error answer.
func (h *host) request(tb testing.TB, method, params string) json.RawMessage {
	tb.Helper()
	h.nextID++
	id := strconv.Itoa(h.nextID)
	h.write(tb, `{"jsonrpc":"2.0","id":`+id+`,"method":"`+method+`","params":`+params+`}`)
	for {
		line, err := h.out.ReadBytes('\n')
		if err != nil {
			tb.Fatalf("reading the answer to %s: %v", method, err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			tb.Fatalf("the agent server wrote %q: %v", line, err)
		}
		if string(m.ID) != id {
			continue
		}
		if m.Error != nil {
			tb.Fatalf("%s answered %s", method, m.Error)
		}
		return m.Result
	}
}

// tool calls one of the agent server's tools and fails when it reports an
// error.
func (h *host) tool(tb testing.TB, name, args string) {
	tb.Helper()
	res := h.request(tb, "tools/call", `{"name":"`+name+`","arguments":`+args+`}`)
	var r struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		tb.Fatalf("%s %s: %s", name, args, res)
	}
}

// connectDemo connects the agent server to the demo server (this test
// binary), its log level at debug as the soak sets it.
func (h *host) connectDemo(tb testing.TB) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd, _ := json.Marshal(exe)
	h.tool(tb, "connect_to_mcp", `{"command":`+string(cmd)+`,"env":{"`+demoEnv+`":"1"},"name":"demo","log_level":"debug"}`)
}

// BenchmarkLogThenNotifications is the soak's log step: a tool that sends
// a log notification, then the newest ten of the notification log read.
// Its allocations are the agent server's per step (go test -benchmem
// -memprofile to see where).
func BenchmarkLogThenNotifications(b *testing.B) {
	h := startHost(b)
	h.connectDemo(b)
	b.ReportAllocs()
	for b.Loop() {
		h.tool(b, "call_mcp_primitive", `{"type":"tool","name":"log","arguments":{"level":"info","message":"soak"},"connection":"demo"}`)
		h.tool(b, "get_server_notifications", `{"count":10,"connection":"demo"}`)
	}
}

// BenchmarkEcho is the soak's plain step, for comparison.
func BenchmarkEcho(b *testing.B) {
	h := startHost(b)
	h.connectDemo(b)
	b.ReportAllocs()
	for b.Loop() {
		h.tool(b, "call_mcp_primitive", `{"type":"tool","name":"echo","arguments":{"message":"soak"},"connection":"demo"}`)
	}
}
