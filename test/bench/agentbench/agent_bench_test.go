package agentbench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

func connectArgs(name string) map[string]any {
	return map[string]any{"command": binPath, "args": []any{"demo-server"}, "name": name}
}

// BenchmarkStartToToolsList: process start to the first answered tools/list
// (goal: under 25 ms).
func BenchmarkStartToToolsList(b *testing.B) {
	for b.Loop() {
		h := startHost(b)
		h.initialize(b)
		h.wait(b, h.send(b, "tools/list", map[string]any{}))
		b.StopTimer()
		h.close(b)
		b.StartTimer()
	}
}

// BenchmarkCall compares a direct client call of the demo server's echo with
// the same call through call_mcp_primitive; the difference is what run-mcp
// adds (goal: under 200 µs at the median).
func BenchmarkCall(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		c := directClient(b)
		ctx := context.Background()
		for b.Loop() {
			if _, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("through-run-mcp", func(b *testing.B) {
		h := startHost(b)
		defer h.close(b)
		h.initialize(b)
		h.call(b, "connect_to_mcp", connectArgs("bench"))
		args := map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}}
		for b.Loop() {
			h.call(b, "call_mcp_primitive", args)
		}
	})
}

// BenchmarkRelay20MB: peak memory of run-mcp while a 20 MB result passes
// through it (goal: under 100 MB; spilled to disk, so the host gets a head).
func BenchmarkRelay20MB(b *testing.B) {
	h := startHost(b, "-o", b.TempDir())
	defer h.close(b)
	h.initialize(b)
	h.call(b, "connect_to_mcp", connectArgs("big"))
	for b.Loop() {
		h.call(b, "call_mcp_primitive", map[string]any{"type": "tool", "name": "big_text", "arguments": map[string]any{"chars": 20_000_000}})
	}
	b.ReportMetric(float64(procStatusKB(b, h.cmd.Process.Pid, "VmHWM"))/1024, "MB-peak-rss")
}

// BenchmarkHundredConnections: 100 named connections open at once, each
// called in parallel; memory per idle connection besides the child.
func BenchmarkHundredConnections(b *testing.B) {
	const n = 100
	for b.Loop() {
		h := startHost(b, "--max-connections", "256")
		h.initialize(b)
		before := procStatusKB(b, h.cmd.Process.Pid, "VmRSS")
		for i := range n {
			h.call(b, "connect_to_mcp", connectArgs(fmt.Sprintf("c%03d", i)))
		}
		// Parallel calls: write all requests, then read all answers.
		ids := map[int]bool{}
		for i := range n {
			id := h.send(b, "tools/call", map[string]any{"name": "call_mcp_primitive", "arguments": map[string]any{
				"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}, "connection": fmt.Sprintf("c%03d", i)}})
			ids[id] = true
		}
		errs := 0
		for len(ids) > 0 {
			m := h.next(b)
			v, ok := m["id"].(float64)
			if !ok || !ids[int(v)] {
				continue
			}
			delete(ids, int(v))
			if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
				errs++
			}
		}
		after := procStatusKB(b, h.cmd.Process.Pid, "VmRSS")
		b.ReportMetric(float64(after-before)/n, "KB-per-connection")
		b.ReportMetric(float64(errs), "errors")
		h.close(b)
	}
}

// BenchmarkHostRoundTrip: one ping through the agent server's stdio and
// mcp-go's server dispatch, with no engine work: the floor under any added
// latency of call_mcp_primitive.
func BenchmarkHostRoundTrip(b *testing.B) {
	h := startHost(b)
	defer h.close(b)
	h.initialize(b)
	for b.Loop() {
		h.wait(b, h.send(b, "ping", map[string]any{}))
	}
}

// BenchmarkCallAdded alternates a direct call and a call through run-mcp
// on every iteration and reports the median of their differences, so drift
// in the machine's load cancels out (goal: under 200 µs).
func BenchmarkCallAdded(b *testing.B) {
	c := directClient(b)
	ctx := context.Background()
	h := startHost(b)
	defer h.close(b)
	h.initialize(b)
	h.call(b, "connect_to_mcp", connectArgs("bench"))
	args := map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}}
	direct := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}}
	diffs := make([]time.Duration, 0, b.N)
	var directs, throughs []float64
	for b.Loop() {
		t0 := time.Now()
		if _, err := c.CallTool(ctx, direct); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		h.call(b, "call_mcp_primitive", args)
		through := time.Since(t1)
		diffs = append(diffs, through-t1.Sub(t0))
		directs, throughs = append(directs, ms(t1.Sub(t0))), append(throughs, ms(through))
	}
	slices.Sort(diffs)
	b.ReportMetric(float64(diffs[len(diffs)/2].Microseconds()), "p50-added-µs")
	d, t := median(directs), median(throughs)
	b.ReportMetric(d, "floor-p50-ms")
	b.ReportMetric(t, "p50-ms")
	b.ReportMetric(t/d, "ratio")
	printBench("agent_call_sequential_p50_ms", t, d)
}

// directClient is an mcp-go client of the demo server without run-mcp in
// between, closed when the benchmark ends.
func directClient(b *testing.B) *client.Client {
	c, err := client.NewStdioMCPClient(binPath, nil, "demo-server")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: "2025-11-25"}}); err != nil {
		b.Fatal(err)
	}
	return c
}
