//go:build !windows

package containment

import (
	"bufio"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/wire"
)

// TestALaunchersServerServesUntilItsConnectionEnds: a server started
// through a launcher (a wrapper that starts the real server on the same
// pipes and exits 0) keeps serving after the launcher exits; the process
// layer names it, and stopping the connection kills it and everything it
// started, and nothing of another server's. The launcher runs beside
// another server, so it goes through the exec trampoline.
func TestALaunchersServerServesUntilItsConnectionEnds(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	sp := wire.NewSpawner()
	defer sp.Close()
	otherDir, dir := t.TempDir(), t.TempDir()
	other, err := wire.Start(sp, wire.Spec{Command: spawner, Args: append([]string{"--pids", otherDir}, everyKind...)})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Stop()
	otherPids := waitPids(t, otherDir, everyName...)
	p, err := wire.Start(sp, wire.Spec{Command: spawner, Args: append([]string{"--launcher", "--pids", dir}, everyKind...)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	pids := waitPids(t, dir, append([]string{"launcher"}, everyName...)...)
	if p.Pid() != pids["launcher"] {
		t.Errorf("the process started is PID %d; the launcher says it is %d", p.Pid(), pids["launcher"])
	}
	select {
	case <-p.Exited():
	case <-time.After(patience):
		t.Fatal("the launcher never exited")
	}
	if e, _ := p.Exit(); e.Code != 0 || e.Sentence() != "The server exited with code 0 (it chose to stop)." {
		t.Errorf("the launcher's exit is %+v", e)
	}
	if got := p.Serving(); !slices.Contains(got, pids["server"]) {
		t.Errorf("Serving() = %v, want the server the launcher started (PID %d) among them", got, pids["server"])
	}
	if got := (wire.Exit{Code: 0}).LauncherSentence(pids["launcher"], []int{pids["server"]}); !strings.Contains(got, "still serves the connection") {
		t.Errorf("the launcher's sentence is %q", got)
	}
	if _, err := p.Stdin().Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")); err != nil {
		t.Fatalf("write a ping to the launcher's server: %v", err)
	}
	_ = p.Stdout().SetReadDeadline(time.Now().Add(patience))
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":7`) {
		t.Fatalf("the launcher's server answered %q, %v", line, err)
	}
	p.Stop()
	_ = p.Stdout().Close()
	delete(pids, "launcher") // it exited by itself, as it should
	wantNoSurvivors(t, "the stop of a launcher's connection", pids)
	var hurt []string
	for _, name := range slices.Sorted(maps.Keys(otherPids)) {
		if !alive(otherPids[name]) {
			hurt = append(hurt, name)
		}
	}
	if len(hurt) > 0 {
		t.Errorf("stopping the launcher's connection killed the other server's %v", hurt)
	}
	other.Stop()
	_ = other.Stdout().Close()
	wantNoSurvivors(t, "the stop of the other server", otherPids)
}

// TestALaunchedServerWorksThroughRunMCP: a server started through a launcher
// that exits 0 at once answers calls from the agent server and from a
// shell; status says the launcher exited and who serves; the end of the
// connection leaves nothing behind.
func TestALaunchedServerWorksThroughRunMCP(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	dir := t.TempDir()
	a := startAgent(t)
	a.call(t, "connect_to_mcp", map[string]any{"name": "l", "command": spawner, "args": []any{"--launcher", "--pids", dir}})
	pids := waitPids(t, dir, "launcher", "server")
	deadline := time.Now().Add(patience)
	var status string
	for time.Now().Before(deadline) {
		if status = a.call(t, "mcp_server_status", map[string]any{"connection": "l"}); strings.Contains(status, "Launcher:") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(status, "Connection l: live") || !strings.Contains(status, "still serves the connection") {
		t.Fatalf("after the launcher exited, status says:\n%s", status)
	}
	if got := a.call(t, "call_mcp_primitive", map[string]any{"connection": "l", "type": "tool", "name": "ping"}); !strings.Contains(got, "pong") {
		t.Errorf("a call after the launcher exited: %q", got)
	}
	a.call(t, "disconnect_from_mcp", map[string]any{"connection": "l"})
	wantNoSurvivors(t, "a launched server's connection ended", pids)

	shellDir := t.TempDir()
	c := command(t, t.TempDir(), append([]string{"call", "ping"}, target(shellDir, "--launcher")...)...)
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pong") {
		t.Fatalf("run-mcp call ping through a launcher: %v\n%s", err, out)
	}
	wantNoSurvivors(t, "a one-shot call through a launcher", waitPids(t, shellDir, "launcher", "server"))
}
