package agent

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// running reports whether pid is a live process (a zombie counts as gone:
// it has exited and only waits to be reaped).
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// Closing run-mcp's stdin (the host going away) stops every target, even
// one that ignores its own stdin closing, and run-mcp exits 0.
func TestClosingStdinStopsEveryTarget(t *testing.T) {
	t.Parallel()
	h := start(t)
	pidA := pidOf(t, connectDemo(t, h, "a"))
	pidB := pidOf(t, connectDemo(t, h, "b", "--ignore-stdin-eof"))
	for _, pid := range []int{pidA, pidB} {
		if !running(pid) {
			t.Fatalf("target PID %d is not running before the close", pid)
		}
	}

	began := time.Now()
	err := h.close()
	took := time.Since(began)
	if err != nil {
		t.Errorf("run-mcp did not exit cleanly after its stdin closed: %v", err)
	}
	if st := h.cmd.ProcessState; st == nil || st.ExitCode() != 0 {
		t.Errorf("run-mcp's exit: %v, want code 0", st)
	}
	// mcp-go's client sends SIGTERM after 2 s of waiting, which would hide
	// a run-mcp that does not stop by itself.
	if took >= 2*time.Second {
		t.Errorf("run-mcp took %s to exit after its stdin closed", took)
	}
	for _, pid := range []int{pidA, pidB} {
		if !eventually(5*time.Second, func() bool { return !running(pid) }) {
			t.Errorf("target PID %d still runs after run-mcp exited", pid)
		}
	}
}

// SIGTERM (and SIGINT) stop every target and run-mcp exits 0, as when the
// host closes stdin.
func TestSignalStopsEveryTarget(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		s := newRawSession(t, bin)
		var pids []int
		for i, extra := range [][]any{{"demo-server"}, {"demo-server", "--ignore-stdin-eof"}} {
			raw := s.result(t, 2+i, "tools/call", map[string]any{"name": "connect_to_mcp",
				"arguments": map[string]any{"command": bin, "args": extra, "name": fmt.Sprintf("c%d", i)}})
			pids = append(pids, pidOf(t, raw))
		}
		if err := s.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := s.cmd.Wait()
		if err != nil || s.cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("%v: run-mcp exited with %v, want code 0", sig, err)
		}
		for _, pid := range pids {
			if !eventually(5*time.Second, func() bool { return !running(pid) }) {
				t.Errorf("%v: target PID %d still runs after run-mcp exited", sig, pid)
			}
		}
	}
}
