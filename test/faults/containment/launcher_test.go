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
