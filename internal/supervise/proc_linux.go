package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what the supervisor reads of a process in /proc/<pid>/stat.
type procStat struct {
	state           byte // R, S, D, Z, T, ...
	ppid, pgid, sid int
}

// zombie says the process has ended and waits to be reaped: nothing to kill.
func (s procStat) zombie() bool { return s.state == 'Z' || s.state == 'X' }

// readStat reads /proc/<pid>/stat: the fields after the parenthesised
// command name (which may hold spaces and parentheses) are the state, the
// parent, the process group and the session.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var n [3]int
	for k := range n {
		if n[k], err = strconv.Atoi(f[k+1]); err != nil {
			return procStat{}, false
		}
	}
	return procStat{state: f[0][0], ppid: n[0], pgid: n[1], sid: n[2]}, true
}

// childrenOf lists pid's direct children (zombies included).
// /proc/<pid>/task/*/children is exact and cheap but needs
// CONFIG_PROC_CHILDREN; without it every process's stat is read for its
// parent. ok is false when pid is gone.
func childrenOf(pid int) (kids []int, ok bool) {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if len(files) == 0 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return nil, false
		}
		return childrenByScan(pid), true
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids, true
}

// ownChildren lists the supervisor's own children. All are its main
// thread's: it forks every target on that thread, and an orphan reparents
// to a subreaper's first live thread, the main one while the process
// runs. One file, where childrenOf reads one per thread.
func ownChildren(self int) []int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(self) + "/task/" + strconv.Itoa(self) + "/children")
	if err != nil {
		kids, _ := childrenOf(self)
		return kids
	}
	var kids []int
	for _, field := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(field); err == nil {
			kids = append(kids, n)
		}
	}
	return kids
}

func childrenByScan(parent int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.ppid == parent {
			out = append(out, pid)
		}
	}
	return out
}

// descendants lists every process below the roots, the roots excluded,
// zombies excluded (they are dead already). A process that forks or
// reparents while the walk runs may be missed: callers walk again.
func descendants(roots ...int) []int {
	var out []int
	seen := map[int]bool{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		kids, _ := childrenOf(pid)
		for _, k := range kids {
			if seen[k] {
				continue
			}
			seen[k] = true
			if st, ok := readStat(k); ok && !st.zombie() {
				out = append(out, k)
			}
			queue = append(queue, k) // a zombie's children were reparented: none
		}
	}
	return out
}

// stdioInodes are the inodes of the pipes on pid's fds 0, 1 and 2 (0 where
// the fd is not a pipe): a descendant that kept its parent's stdio is known
// by them even after it left the target's session.
func stdioInodes(pid int) [3]uint64 {
	var out [3]uint64
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	for fd := range out {
		link, err := os.Readlink(dir + strconv.Itoa(fd))
		if err != nil {
			continue
		}
		if n, ok := strings.CutPrefix(link, "pipe:["); ok {
			out[fd], _ = strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64)
		}
	}
	return out
}
