package wire

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// daemonScript starts a double-forked daemon: a subshell starts it in a
// session of its own, with no stdio of the server's, and exits, so the
// daemon is orphaned. Its pid goes to stderr as "daemon N".
const daemonScript = `(setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo "daemon $!" >&2); `

func needSetsid(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid(1)")
	}
}

// TestOneSupervisorForEveryTarget: the targets of one Spawner all run
// under the same supervisor process, run-mcp's child.
func TestOneSupervisorForEveryTarget(t *testing.T) {
	sp := newSpawner(t)
	var sup int
	for i := range 4 {
		p := startSh(t, sp, `echo up >&2; read line`)
		waitStderr(t, p, "up")
		parent := parentOf(t, p.Pid())
		if i == 0 {
			sup = parent
		}
		if parent != sup || parent == os.Getpid() {
			t.Errorf("target %d (PID %d) runs under PID %d; the first ran under %d, and run-mcp is %d", i, p.Pid(), parent, sup, os.Getpid())
		}
	}
	if got := parentOf(t, sup); got != os.Getpid() {
		t.Errorf("the supervisor's parent is PID %d, want run-mcp (PID %d)", got, os.Getpid())
	}
}

// TestStopKillsItsTargetsDaemonsAndNoOthers: stopping one target kills its
// double-forked daemon and nothing of the others, whether the target was
// the first (started alone, straight to execve) or a later one (through the
// exec trampoline).
func TestStopKillsItsTargetsDaemonsAndNoOthers(t *testing.T) {
	needSetsid(t)
	sp := newSpawner(t)
	procs := make([]*Process, 3)
	daemons := make([]int, 3)
	for i := range procs {
		procs[i] = startSh(t, sp, daemonScript+`read line`)
		daemons[i] = pidAfter(t, procs[i], "daemon ")
	}
	stopped := map[int]bool{}
	for _, i := range []int{1, 0, 2} {
		stopBounded(t, procs[i])
		stopped[i] = true
		waitDead(t, daemons[i])
		for j := range procs {
			if !stopped[j] && (dead(daemons[j]) || dead(procs[j].Pid())) {
				t.Errorf("stopping target %d killed target %d or its daemon (PIDs %d, %d)", i, j, procs[j].Pid(), daemons[j])
			}
		}
	}
}

// TestTargetsDyingAtOnceKeepTheirOwnRemnants: two targets die in the same
// moment, each leaving a process behind (one in the target's session, one
// in a session of its own that holds the target's stderr); each stop then
// kills its own target's remnant and not the other's.
func TestTargetsDyingAtOnceKeepTheirOwnRemnants(t *testing.T) {
	needSetsid(t)
	sp := newSpawner(t)
	startSh(t, sp, `read line`) // the others then start through the trampoline
	script := `(exec sleep 1000) </dev/null >/dev/null & echo "kept $!" >&2; ` +
		`setsid sleep 1000 </dev/null >/dev/null & echo "left $!" >&2; ` +
		`echo ready >&2; exec sleep 1000`
	a, b := startSh(t, sp, script), startSh(t, sp, script)
	remnants := map[*Process][]int{}
	for _, p := range []*Process{a, b} {
		waitStderr(t, p, "ready")
		remnants[p] = []int{pidAfter(t, p, "kept "), pidAfter(t, p, "left ")}
	}
	_ = syscall.Kill(a.Pid(), syscall.SIGKILL)
	_ = syscall.Kill(b.Pid(), syscall.SIGKILL)
	waitClosed(t, "the first target to die", a.Exited())
	waitClosed(t, "the second target to die", b.Exited())
	stopBounded(t, a)
	for _, pid := range remnants[a] {
		waitDead(t, pid)
	}
	for _, pid := range remnants[b] {
		if dead(pid) {
			t.Errorf("stopping the first target killed PID %d, which the second left", pid)
		}
	}
	stopBounded(t, b)
	for _, pid := range remnants[b] {
		waitDead(t, pid)
	}
}

// TestALauncherExitsAndItsServerServesOn: a wrapper that starts the real
// server on its own pipes and exits 0 ends the target's process, not the
// connection: the server still answers, Serving names it, and the stop
// ends it.
func TestALauncherExitsAndItsServerServesOn(t *testing.T) {
	sp := newSpawner(t)
	for range 2 { // the first target alone, then one through the trampoline
		p := startSh(t, sp, `exec 3<&0; (exec cat <&3 3<&-) & echo "server $!" >&2; exit 0`)
		server := pidAfter(t, p, "server ")
		waitClosed(t, "the launcher to exit", p.Exited())
		if e, _ := p.Exit(); e.Code != 0 || e.StoppedByUs {
			t.Errorf("Exit() = %+v, want the launcher's code 0", e)
		}
		if got := p.Serving(); !slices.Equal(got, []int{server}) {
			t.Errorf("Serving() = %v after the launcher exited, want the server it started, PID %d", got, server)
		}
		if _, err := p.Stdin().Write([]byte("still here\n")); err != nil {
			t.Fatalf("write to the server the launcher started: %v", err)
		}
		_ = p.Stdout().SetReadDeadline(time.Now().Add(patience))
		line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
		if err != nil || line != "still here\n" {
			t.Errorf("the server the launcher started answered %q, %v", line, err)
		}
		if e := stopBounded(t, p); e.Code != 0 || e.StoppedByUs {
			t.Errorf("Stop() = %+v, want how the launcher ended", e)
		}
		waitDead(t, server)
		if got := p.Serving(); len(got) != 0 {
			t.Errorf("Serving() = %v after the stop, want none", got)
		}
		_ = p.Stdout().Close()
	}
}

// TestAStoppedSupervisorIsKilled: a supervisor that does not answer (here
// stopped with SIGSTOP) does not make a stop hang: it is killed, its
// targets and what they started with it, and the next spawn starts a new
// one.
func TestAStoppedSupervisorIsKilled(t *testing.T) {
	needSetsid(t)
	sp := newSpawner(t)
	p := startSh(t, sp, `sleep 1000 & echo "member $!" >&2; read line`)
	member := pidAfter(t, p, "member ")
	sup := parentOf(t, p.Pid())
	if err := syscall.Kill(sup, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	targets.KillAtCleanup(t, sup)
	e := stopBounded(t, p)
	if e.Signal != "SIGKILL" || !e.StoppedByUs {
		t.Errorf("Stop() = %+v, want killed (with its supervisor) by run-mcp", e)
	}
	waitDead(t, p.Pid())
	waitDead(t, member)
	waitDead(t, sup)
	q := startSh(t, sp, `echo up >&2; read line`)
	waitStderr(t, q, "up")
	if got := parentOf(t, q.Pid()); got == sup || got == os.Getpid() {
		t.Errorf("the spawn after the stopped supervisor runs under PID %d (the old supervisor was %d)", got, sup)
	}
}

// TestExecFailureThroughTheTrampoline: a target started beside another
// goes through the exec trampoline, and a file the kernel refuses to run
// fails there with the kernel's reason, as the first target's would.
func TestExecFailureThroughTheTrampoline(t *testing.T) {
	sp := newSpawner(t)
	startSh(t, sp, `read line`)
	bad := t.TempDir() + "/server"
	if err := os.WriteFile(bad, []byte{0x7f, 'E', 'L', 'F', 0, 0, 0, 0}, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Start(sp, Spec{Command: bad})
	if err == nil {
		p.Stop()
		t.Fatal("Start of a broken executable succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "fork/exec "+bad+": exec format error") {
		t.Errorf("Start error = %q, want the kernel's reason", msg)
	}
}

// ignoredMask reads the SigIgn line of a /proc/PID/status.
func ignoredMask(t *testing.T, lines []string) uint64 {
	t.Helper()
	for _, l := range lines {
		if hex, ok := strings.CutPrefix(l, "SigIgn:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatalf("SigIgn line %q: %v", l, err)
			}
			return m
		}
	}
	t.Fatalf("no SigIgn line in:\n%s", strings.Join(lines, "\n"))
	return 0
}

// TestATargetThroughTheTrampolineIsItsOwn: what a target started through
// the trampoline gets is what it asked for: its argv, its environment, its
// directory, and plain signal dispositions.
func TestATargetThroughTheTrampolineIsItsOwn(t *testing.T) {
	sp := newSpawner(t)
	startSh(t, sp, `read line`)
	dir := t.TempDir()
	p, err := Start(sp, Spec{Command: "sh", Args: []string{"-c", `echo "argv $0 $1"; echo "pwd $(pwd)"; env | sort; grep -E '^Sig(Blk|Ign)' /proc/self/status`, "a b"},
		Env: map[string]string{"EXTRA": "1"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(); _ = p.Stdout().Close() })
	_ = p.Stdout().SetReadDeadline(time.Now().Add(patience))
	var lines []string
	sc := bufio.NewScanner(p.Stdout())
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	out := strings.Join(lines, "\n")
	for _, want := range []string{"argv a b ", "pwd " + dir, "EXTRA=1", "SigBlk:\t0000000000000000"} {
		if !strings.Contains(out, want) {
			t.Errorf("the target's own report lacks %q:\n%s", want, out)
		}
	}
	// A signal ignored where run-mcp was started stays ignored in its
	// targets, as POSIX has exec keep it (nohup relies on that); neither the
	// supervisor nor the trampoline may add one.
	own, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if added := ignoredMask(t, lines) &^ ignoredMask(t, strings.Split(string(own), "\n")); added != 0 {
		t.Errorf("the target ignores signals this process does not (mask %#x):\n%s", added, out)
	}
	for _, l := range lines {
		if name, _, ok := strings.Cut(l, "="); ok && !strings.Contains(l, " ") &&
			!slices.Contains([]string{"PATH", "HOME", "SHELL", "USER", "EXTRA", "PWD", "SHLVL", "_", "OLDPWD"}, name) {
			t.Errorf("the target got %s, which is neither whitelisted nor explicit", name)
		}
	}
}
