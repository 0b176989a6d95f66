//go:build !windows

package containment

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/supervise"
	"github.com/run-mcp/run-mcp/test/targets"
)

// agent is run-mcp's agent server, driven as an agent's MCP client drives
// it.
type agent struct {
	c   *client.Client
	cmd *exec.Cmd
}

// startAgent starts the agent server and initialises it; it is closed
// (stdin closed, run-mcp waited for) when the test ends.
func startAgent(t *testing.T) *agent {
	t.Helper()
	a := &agent{}
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		a.cmd = exec.Command(command, args...)
		a.cmd.Env = env
		a.cmd.Dir = t.TempDir()
		return a.cmd, nil
	}
	a.c = client.NewClient(transport.NewStdioWithOptions(bin, nil, []string{"-o", t.TempDir()}, transport.WithCommandFunc(cmdFunc)),
		client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := a.c.Start(ctx); err != nil {
		t.Fatalf("start run-mcp: %v", err)
	}
	t.Cleanup(func() { _ = a.c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "containment-test-host", Version: "1.0.0"}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if _, err := a.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize run-mcp: %v", err)
	}
	return a
}

// call calls one of the agent server's tools, and fails the test unless it
// answers, without error, within patience.
func (a *agent) call(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := a.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, strings.Join(text, "\n"))
	}
	return strings.Join(text, "\n")
}

// connect connects the spawner fixture as connection name, with every kind
// of descendant, and returns their pids once all run.
func (a *agent) connect(t *testing.T, name string) map[string]int {
	t.Helper()
	dir := t.TempDir()
	a.call(t, "connect_to_mcp", map[string]any{"name": name, "command": spawner, "args": append([]string{"--pids", dir}, everyKind...)})
	return waitPids(t, dir, everyName...)
}

// closeBounded closes the agent server's stdin, which ends it, and fails
// the test unless run-mcp has exited within patience.
func (a *agent) closeBounded(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = a.c.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(patience):
		_ = a.cmd.Process.Kill()
		<-done
		t.Fatalf("run-mcp was still running %s after its stdin closed", patience)
	}
}

// prefixed is pids with each name prefixed, to merge several servers'.
func prefixed(prefix string, pids map[string]int) map[string]int {
	out := map[string]int{}
	for n, pid := range pids {
		out[prefix+" "+n] = pid
	}
	return out
}

// supervisorsOf lists run-mcp's children that are supervisors.
func supervisorsOf(t *testing.T, runMCP int) []int {
	t.Helper()
	var sups []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !running(pid) {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), "\x00"+supervise.Arg) &&
			parentOf(t, pid) == runMCP {
			sups = append(sups, pid)
		}
	}
	return sups
}

// TestAgentServerRunsOneSupervisorForAllItsServers: however many servers
// the agent server runs, they run under one supervisor, its child; and a
// kill -9 of run-mcp leaves nothing of any of them.
func TestAgentServerRunsOneSupervisorForAllItsServers(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	a := startAgent(t)
	all := map[string]int{}
	var servers []int
	for _, name := range []string{"one", "two", "three"} {
		pids := a.connect(t, name)
		servers = append(servers, pids["server"])
		maps.Copy(all, prefixed(name, pids))
	}
	sups := supervisorsOf(t, a.cmd.Process.Pid)
	if len(sups) != 1 {
		t.Fatalf("run-mcp (PID %d) has %d supervisors %v for 3 servers, want 1", a.cmd.Process.Pid, len(sups), sups)
	}
	for _, s := range servers {
		if got := parentOf(t, s); got != sups[0] {
			t.Errorf("server PID %d runs under PID %d, not the supervisor (PID %d)", s, got, sups[0])
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = a.c.Close() // waits for run-mcp, now dead
	wantNoSurvivors(t, "kill -9 of the agent server running three servers", all)
}

// TestDisconnectStopsOnlyItsOwnServer: stopping one connection kills its
// server and everything it started, setsid'd and double-forked descendants
// included, and nothing of another connection's.
func TestDisconnectStopsOnlyItsOwnServer(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	a := startAgent(t)
	first, second := a.connect(t, "first"), a.connect(t, "second")
	a.call(t, "disconnect_from_mcp", map[string]any{"connection": "first"})
	wantNoSurvivors(t, "disconnect_from_mcp of its connection", first)
	var hurt []string
	for _, name := range slices.Sorted(maps.Keys(second)) {
		if !alive(second[name]) {
			hurt = append(hurt, fmt.Sprintf("%s (pid %d)", name, second[name]))
		}
	}
	if len(hurt) > 0 {
		t.Errorf("disconnecting the first connection killed the second's %s", strings.Join(hurt, ", "))
	}
	a.closeBounded(t)
	wantNoSurvivors(t, "the agent server's exit at end of stdin", second)
}

// TestAStoppedSupervisorIsKilledNotWaitedFor: a supervisor that does not
// answer (stopped with SIGSTOP) makes neither a disconnect nor the agent
// server's exit wait for it: it is killed, and nothing of its server is
// left.
func TestAStoppedSupervisorIsKilledNotWaitedFor(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	a := startAgent(t)
	pids := a.connect(t, "wedged")
	sup := parentOf(t, pids["server"])
	if argv := cmdline(t, sup); !slices.Contains(argv, supervise.Arg) {
		t.Fatalf("the server's parent (PID %d) runs %q, not run-mcp's supervisor", sup, argv)
	}
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	targets.KillAtCleanup(t, sup)
	a.call(t, "disconnect_from_mcp", map[string]any{"connection": "wedged"}) // within patience, or the test fails
	wantNoSurvivors(t, "a disconnect with a stopped supervisor", pids)
	if running(sup) {
		t.Errorf("the stopped supervisor (PID %d) was left running", sup)
	}
	a.closeBounded(t)
}
