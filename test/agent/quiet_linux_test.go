package agent

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// An agent server whose target is quiet costs nothing while it waits: no
// thread of run-mcp's, nor of its supervisor's, is woken. The stderr relay
// waits for stderr to arrive rather than asking every connection on a
// clock, and the supervisor looks for silently arriving orphans only while
// one can come. (They used to wake four times a second, and once a second.)
//
// A start-up settles at its own pace (the runtime returns memory, the
// handshake's goroutines end), so the test looks for one whole quiet window
// within a bound, rather than timing the first one.
func TestAQuietAgentServerSleeps(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()})
	pids := []int{h.cmd.Process.Pid}
	pids = append(pids, childrenOf(t, h.cmd.Process.Pid)...) // its supervisor
	if len(pids) != 2 {
		t.Fatalf("run-mcp (pid %d) has children %v; want its one supervisor", pids[0], pids[1:])
	}
	const window = 2 * time.Second
	deadline := time.Now().Add(30 * time.Second)
	var woke int
	for {
		before := switches(t, pids)
		time.Sleep(window) // the window measured, not a wait for an event
		woke = switches(t, pids) - before
		if woke == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("run-mcp and its supervisor, waiting on a quiet target, were woken %d times in the last %s (want a window with none)", woke, window)
}

// childrenOf lists pid's children (its main thread's: run-mcp forks from
// any thread, so every thread's list is read).
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	var kids []int
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/children")
		if err != nil {
			continue // the thread ended
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// switches is how many times the threads of pids have been switched in so
// far: each wake-up is one (voluntary, after a wait) or more.
func switches(t *testing.T, pids []int) int {
	t.Helper()
	total := 0
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/task"
		tasks, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("pid %d is gone: %v", pid, err)
		}
		for _, task := range tasks {
			b, err := os.ReadFile(dir + "/" + task.Name() + "/status")
			if err != nil {
				continue // the thread ended
			}
			for _, line := range strings.Split(string(b), "\n") {
				if rest, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(rest))
					total += n
				}
			}
		}
	}
	return total
}
