package targets

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// QuietWindow is how long a process tree must go unwoken for Quiet.
const QuietWindow = 2 * time.Second

// Quiet waits, up to a bound, for one whole QuietWindow in which no thread
// of pid or of its children is woken, and fails the test with the number
// of wake-ups in the last window if none comes. It is for a process that
// should sleep while nothing happens (an agent server or session daemon
// whose server is quiet, and the supervisor below it). A start-up settles
// at its own pace, so it looks for one quiet window rather than timing the
// first.
func Quiet(t *testing.T, pid int, what string) {
	t.Helper()
	pids := append([]int{pid}, children(t, pid)...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		before := switches(t, pids)
		time.Sleep(QuietWindow) // the window measured, not a wait for an event
		woke := switches(t, pids) - before
		if woke == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (pids %v), with nothing to do, were woken %d times in the last %s (want a window with none)", what, pids, woke, QuietWindow)
		}
	}
}

// children lists pid's children: every thread's, as a Go program forks
// from any thread.
func children(t *testing.T, pid int) []int {
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

// switches is how many times the threads of pids have been switched in
// after a wait so far: each wake-up is one.
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
