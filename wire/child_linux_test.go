package wire

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// pidAfter reads the pid the script printed after prefix on stderr.
func pidAfter(t *testing.T, p *Process, prefix string) int {
	t.Helper()
	waitStderr(t, p, prefix)
	for _, l := range ringOf(p).Since(0).Lines {
		if n, ok := strings.CutPrefix(l.Text, prefix); ok {
			if pid, err := strconv.Atoi(n); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no pid after %q in %q", prefix, stderrText(p))
	return 0
}

// parentOf is the parent pid of pid, from /proc/<pid>/stat.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	return procStat(t, pid)[0]
}

// procStat is the numbers of /proc/<pid>/stat from field 4 (the parent
// pid) to field 7 (the controlling terminal).
func procStat(t *testing.T, pid int) [4]int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	var n [4]int
	for i := range n {
		if n[i], err = strconv.Atoi(f[i+1]); err != nil {
			t.Fatalf("read /proc/%d/stat: %q", pid, s)
		}
	}
	return n
}

// TestProcessStopTakesWhatLeftTheGroup: a daemon the server started in a
// session of its own (out of its process group) is not killed when the
// server exits on its own (what a server leaves may serve on), and dies
// with the stop that ends the connection.
func TestProcessStopTakesWhatLeftTheGroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid(1)")
	}
	sp := newSpawner(t)
	p := startSh(t, sp, `setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo "daemon $!" >&2; read line; exit 0`)
	daemon := pidAfter(t, p, "daemon ")
	_ = p.Stdin().Close() // the server's read ends and it exits 0 by itself
	waitClosed(t, "the server to end", p.Done())
	if e, _ := p.Exit(); e.Code != 0 || e.StoppedByUs {
		t.Errorf("Exit() = %+v, want code 0 by its own choice", e)
	}
	if dead(daemon) {
		t.Errorf("the daemon %d died with the server; only a stop ends what a server left", daemon)
	}
	if e := stopBounded(t, p); e.Code != 0 || e.StoppedByUs {
		t.Errorf("Stop() after the server's own exit = %+v, want how it ended", e)
	}
	waitDead(t, daemon)
}

// TestProcessSupervisorKilledDirectly: kill -9 of the supervisor itself (the
// one thing it cannot clean up after) still ends the target, through its
// parent-death signal, and run-mcp says it was killed.
func TestProcessSupervisorKilledDirectly(t *testing.T) {
	sp := newSpawner(t)
	p := startSh(t, sp, `sleep 1000 & echo "member $!" >&2; wait`)
	member := pidAfter(t, p, "member ")
	supervisor := parentOf(t, p.Pid())
	if supervisor == os.Getpid() {
		t.Fatalf("the target %d is run-mcp's own child: no supervisor", p.Pid())
	}
	if err := syscall.Kill(supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "the target to end", p.Done())
	if e, _ := p.Exit(); e.Signal != "SIGKILL" || e.StoppedByUs {
		t.Errorf("Exit() = %+v, want killed by SIGKILL, not by run-mcp", e)
	}
	waitDead(t, p.Pid())
	waitDead(t, member) // still in the target's group, which run-mcp kills itself
}

// TestProcessExecFailureSaysWhy: a file that passes the checks before the
// spawn (it exists and is executable) but that the kernel refuses to run
// fails with the kernel's reason, as a direct spawn would.
func TestProcessExecFailureSaysWhy(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/server"
	if err := os.WriteFile(bad, []byte{0x7f, 'E', 'L', 'F', 0, 0, 0, 0}, 0o755); err != nil {
		t.Fatal(err)
	}
	sp := newSpawner(t)
	p, err := Start(sp, Spec{Command: bad})
	if err == nil {
		p.Stop()
		t.Fatal("Start of a broken executable succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, "fork/exec "+bad+": exec format error") {
		t.Errorf("Start error = %q, want the kernel's reason", msg)
	}
}
