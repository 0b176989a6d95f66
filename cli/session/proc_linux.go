package session

import (
	"os"
	"strconv"
	"strings"
)

// Stopped says pid is stopped by a signal (SIGSTOP, Ctrl-Z) or a debugger:
// state T or t of /proc/<pid>/stat. Such a process takes connections on a
// listening socket (the kernel queues them) but answers none of them.
func Stopped(pid int) bool {
	f, ok := statFields(pid)
	return ok && (f[0] == "T" || f[0] == "t")
}

// statFields are the fields of /proc/<pid>/stat after the command name
// (the process state first); ok is false when pid is no process.
func statFields(pid int) ([]string, bool) {
	if pid <= 0 {
		return nil, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	// The command name (field 2) may hold spaces and parens: fields after
	// the last ')' are fixed.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	f := strings.Fields(s[i+1:])
	return f, len(f) >= 20
}

// procStart reads a process's start time (clock ticks since boot, field 22
// of /proc/<pid>/stat). ok is false when the pid is not a live process (gone,
// or a zombie awaiting its reaper).
func procStart(pid int) (start uint64, ok bool) {
	f, ok := statFields(pid)
	if !ok || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	start, err := strconv.ParseUint(f[19], 10, 64) // field 22 overall
	return start, err == nil
}
