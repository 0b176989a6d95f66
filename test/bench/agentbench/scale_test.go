package agentbench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tinyServer is an MCP server in a few lines of sh: it answers initialize,
// tools/list and ping, so that a thousand of them cost little besides the
// processes.
const tinyServer = `#!/bin/sh
while IFS= read -r line; do
  case $line in *'"id":'*) id=${line#*'"id":'}; id=${id%%[,\}]*} ;; *) continue ;; esac
  case $line in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tiny","version":"1"}}}\n' "$id" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n' "$id" ;;
  *) printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done
`

// BenchmarkThousandConnections: one agent server holding 1,000 connections
// to small servers. Reported: the time per connect (spawn and handshake),
// the supervisor's RSS and their count (one), and what each connection
// costs run-mcp in memory and open files.
func BenchmarkThousandConnections(b *testing.B) {
	const n = 1000
	script := filepath.Join(b.TempDir(), "tiny.sh")
	if err := os.WriteFile(script, []byte(tinyServer), 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		h := startHost(b, "--max-connections", strconv.Itoa(n))
		h.initialize(b)
		pid := h.cmd.Process.Pid
		rss0, fds0 := procStatusKB(b, pid, "VmRSS"), openFiles(pid)
		start := time.Now()
		for i := range n {
			if text := h.call(b, "connect_to_mcp", map[string]any{"name": fmt.Sprintf("c%04d", i), "command": script}); !strings.Contains(text, "Connected") {
				b.Fatalf("connect %d: %s", i, text)
			}
		}
		took := time.Since(start)
		sups := supervisors(pid)
		if len(sups) != 1 {
			b.Fatalf("run-mcp runs %d supervisors for %d connections, want 1", len(sups), n)
		}
		b.ReportMetric(float64(took.Microseconds())/n/1000, "ms-per-connect")
		b.ReportMetric(float64(procStatusKB(b, sups[0], "VmRSS"))/1024, "MB-supervisor-rss")
		b.ReportMetric(float64(procStatusKB(b, pid, "VmRSS")-rss0)/n, "KB-per-connection")
		b.ReportMetric(float64(openFiles(pid)-fds0)/n, "fds-per-connection")
		h.close(b)
	}
}

// supervisors lists the children of pid that run run-mcp's supervisor.
func supervisors(pid int) []int {
	var out []int
	var kids []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		kids = append(kids, strings.Fields(string(b))...)
	}
	for _, f := range kids {
		if cmd, err := os.ReadFile("/proc/" + f + "/cmdline"); err == nil && strings.Contains(string(cmd), "__run-mcp-supervise") {
			n, _ := strconv.Atoi(f)
			out = append(out, n)
		}
	}
	return out
}

func openFiles(pid int) int {
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(entries)
}
