package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// children lists this process's direct children. /proc/self/task/*/children
// is exact and cheap but needs CONFIG_PROC_CHILDREN; without it every
// /proc/<pid>/stat is read for its parent pid.
func children() []int {
	if kids, ok := childrenFiles(); ok {
		return kids
	}
	return childrenByScan(os.Getpid())
}

func childrenFiles() ([]int, bool) {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) == 0 {
		return nil, false
	}
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, true
}

func childrenByScan(self int) []int {
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
		if ppid, ok := parentOf(pid); ok && ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

// parentOf reads the parent pid from /proc/<pid>/stat: the fourth field,
// counted after the parenthesised command name (which may hold spaces).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
