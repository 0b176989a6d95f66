//go:build !windows

// Package containment checks that nothing a target starts outlives run-mcp:
// children, grandchildren, descendants that call setsid or double-fork, and
// ones that ignore SIGTERM, whatever way run-mcp ends (kill -9 included), in
// each of its modes: one-shot commands, the agent server and the session
// daemon.
package containment

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
	"github.com/run-mcp/run-mcp/test/targets"
)

// bin is run-mcp under test; spawner is test/fixtures/spawner.
var bin, spawner string

func TestMain(m *testing.M) {
	// The binary serves as run-mcp's supervisor for the targets its own
	// tests start through wire: dispatch before anything else.
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	cleanup := targets.BuildAll("run-mcp-containment-", targets.Build{Out: &bin, Pkg: "./cmd/run-mcp"}, targets.Build{Out: &spawner, Pkg: "./test/fixtures/spawner"})
	goleak.VerifyTestMain(m, goleak.Cleanup(cleanup))
}

// patience bounds every wait: a deadline against hangs, not a timing.
const patience = 30 * time.Second

// gone is how long a descendant may outlive run-mcp before it counts as a
// survivor: the supervisor kills within milliseconds, so this is generous.
const gone = 10 * time.Second

// everyKind asks the fixture for a descendant of every kind.
var everyKind = []string{"--child", "--grandchild", "--setsid", "--double-fork", "--ignore-term-child"}

// everyName is what the fixture records for everyKind, the server included.
var everyName = []string{"server", "child", "grandchild-parent", "grandchild", "setsid", "double-fork", "ignore-term"}

// requireLinux skips where the guarantee does not hold: only Linux has the
// child subreaper and parent-death signal run-mcp's supervisor relies on.
func requireLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("containment of setsid'd and double-forked descendants needs Linux (a child subreaper); on %s run-mcp stops the process group only", runtime.GOOS)
	}
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs /proc to find the descendants")
	}
}

// target is the fixture as the words after --, recording into pids.
func target(pids string, flags ...string) []string {
	return append([]string{"--", spawner, "--pids", pids}, flags...)
}

// command prepares run-mcp with args, its session records under tmp.
func command(t *testing.T, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "TMPDIR="+tmp)
	c.WaitDelay = 5 * time.Second
	return c
}

// waitPids waits until the fixture has recorded every name and returns the
// pids by name.
func waitPids(t *testing.T, dir string, names ...string) map[string]int {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		pids, missing := map[string]int{}, []string{}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n+".pid"))
			pid, _ := strconv.Atoi(string(b))
			if err != nil || pid <= 0 {
				missing = append(missing, n)
				continue
			}
			pids[n] = pid
		}
		if len(missing) == 0 {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fixture never recorded %v (have %v)", missing, pids)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// survivors polls for up to gone until every recorded process is dead and
// returns the names of those still alive then, which it kills so that a
// failing test leaves nothing behind.
func survivors(t *testing.T, pids map[string]int) []string {
	t.Helper()
	deadline := time.Now().Add(gone)
	for {
		var left []string
		for name, pid := range pids {
			if alive(pid) {
				left = append(left, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			for _, pid := range pids {
				if alive(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			slices.Sort(left)
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wantNoSurvivors fails unless every recorded process is gone.
func wantNoSurvivors(t *testing.T, what string, pids map[string]int) {
	t.Helper()
	if left := survivors(t, pids); len(left) > 0 {
		t.Errorf("%s: %d of %d processes the target started outlived run-mcp by %s: %s",
			what, len(left), len(pids), gone, strings.Join(left, ", "))
	}
}

// alive says whether pid runs the fixture and is neither gone nor a zombie
// (the command line check keeps a reused pid from counting).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X') {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.HasPrefix(string(cmdline), spawner+"\x00")
}

// parentOf reads pid's parent from /proc/<pid>/stat (the field after the
// state, which follows the command name in parentheses).
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatalf("read the stat of PID %d: %v", pid, err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("the stat of PID %d has no parent: %q", pid, b)
	}
	return ppid
}

// cmdline is pid's argv.
func cmdline(t *testing.T, pid int) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatalf("read the command line of PID %d: %v", pid, err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// running says whether pid is there and not a zombie, whatever it runs.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

var connected = regexp.MustCompile(`Connected to .* \(PID (\d+)\)`)

// startConnected starts c and waits for its Connected line on stderr; the
// rest of stderr is kept for failure messages.
func startConnected(t *testing.T, c *exec.Cmd) (pid int, stderr func() string) {
	t.Helper()
	r, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	pids := make(chan int, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := connected.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.Atoi(m[1])
				pids <- n
			}
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	// stderr reads to the end of run-mcp's stderr (bounded, in case
	// something it started still holds the pipe). Call it before c.Wait:
	// Wait closes the pipe once the process is gone, and lines still unread
	// then are lost (the last one, the error, was, under load).
	var all []string
	stderr = func() string {
		limit := time.After(patience)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return strings.Join(all, "\n")
				}
				all = append(all, l)
			case <-limit:
				return strings.Join(all, "\n") + "\n(stderr still open after " + patience.String() + ")"
			}
		}
	}
	select {
	case pid = <-pids:
	case <-time.After(patience):
		_ = c.Process.Kill()
		_ = c.Wait()
		t.Fatalf("run-mcp never connected:\n%s", stderr())
	}
	return pid, stderr
}

// exitCode is how c ended: its code, or -1 with the signal's error.
func exitCode(err error) int {
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
