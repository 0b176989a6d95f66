package supervise

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// Holders lists the processes below root (the supervisor) that hold the
// pipe whose inode is ino on any of their fds: for a target's stdout, what
// can still answer on its connection after the target itself exited (the
// server a launcher started).
func Holders(root int, ino uint64) []int {
	want := "pipe:[" + strconv.FormatUint(ino, 10) + "]"
	var out []int
	for _, pid := range descendants(root) {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if link, err := os.Readlink(dir + e.Name()); err == nil && link == want {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// KillTree sends SIGKILL to every process below root, round after round
// until none is left or patience runs out: run-mcp's last resort on a
// supervisor that stopped answering, which it has stopped (SIGSTOP), so
// that it neither forks nor reaps meanwhile. What the killed leave behind
// reparents to the supervisor, a subreaper, and is found the next round.
func KillTree(root int, patience time.Duration) {
	deadline := time.Now().Add(patience)
	for {
		below := descendants(root)
		if len(below) == 0 || time.Now().After(deadline) {
			return
		}
		for _, pid := range below {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(shutdownTick)
	}
}

// KillGroups sends SIGKILL to every process whose process group is one of
// ids: what is left of targets whose supervisor was lost. Their targets led
// those groups, and each id is a pid that stays reserved as long as a
// process bears it.
func KillGroups(ids []int) {
	if len(ids) == 0 {
		return
	}
	want := map[int]bool{}
	for _, id := range ids {
		want[id] = true
	}
	// Round after round, as a killed parent may have had a child forked
	// meanwhile; a few rounds reach what is there.
	for range 3 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if st, ok := readStat(pid); ok && !st.zombie() && want[st.pgid] {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		if !found {
			return
		}
	}
}
