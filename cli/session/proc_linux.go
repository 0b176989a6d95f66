package session

import (
	"os"
	"strconv"
	"strings"
)

// procStart reads a process's start time (clock ticks since boot, field 22
// of /proc/<pid>/stat). ok is false when the pid is not a live process (gone,
// or a zombie awaiting its reaper).
func procStart(pid int) (start uint64, ok bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces and parens: fields after
	// the last ')' are fixed.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	start, err = strconv.ParseUint(f[19], 10, 64) // field 22 overall
	return start, err == nil
}
