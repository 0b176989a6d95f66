package earlytest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
	"github.com/run-mcp/run-mcp/wire"
)

// The goroutine that forked the spare keeps its thread for the process's
// life (see supervise.StartSpare).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/run-mcp/run-mcp/internal/supervise.StartSpare.func1"))
}

const patience = 20 * time.Second

// started says the process's one spare was started (go test -count=N runs
// the test N times in one process).
var started bool

// A target handed early that is not the one the spawn resolved is stopped,
// and the spawn starts its own: the wrong process never serves.
func TestSpawnStopsAnEarlyTargetThatIsNotItsOwn(t *testing.T) {
	if started {
		t.Skip("a process starts one spare supervisor, and an earlier run of this test took it")
	}
	started = true
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "early.pid")
	const shPath = "/bin/sh"
	early := supervise.Target{Path: shPath, Argv: []string{shPath, "-c", "echo $$ > " + pidFile + "; exec sleep 60"},
		Env: supervise.TargetEnv(nil), Dir: dir}
	supervise.StartSpare(&early)
	pid := waitPid(t, pidFile)

	sp := wire.NewSpawner()
	defer sp.Close()
	p, err := wire.StartInto(sp, wire.Spec{Command: shPath, Args: []string{"-c", "cat"}, Dir: dir}, wire.NewRing())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if p.Pid() == pid {
		t.Fatalf("the spawn kept the early target (PID %d), which runs something else", pid)
	}
	if alive(pid) {
		t.Errorf("the early target (PID %d) still runs after the spawn chose its own", pid)
	}
	// The spawn's own server is the one on the pipes.
	if _, err := p.Stdin().Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	_ = p.Stdout().SetReadDeadline(time.Now().Add(patience))
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Errorf("the spawn's own server answered %q, %v; want ping", line, err)
	}
}

func waitPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the early target never started (no %s)", file)
	return 0
}

// alive says whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
