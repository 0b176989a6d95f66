package main

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// every is how often a running command's tree is sampled: often enough that
// the processes of a one-shot command are all seen (they live as long as it
// does), seldom enough that a scan of /proc (about half a millisecond for a
// hundred processes) costs the machine little.
const every = 10 * time.Millisecond

// tree follows the processes below some roots and the largest peak RSS
// seen of each. VmHWM only grows, so the last sample of a process is its
// peak up to then.
type tree struct {
	roots  []int
	peak   map[int]int64 // pid → VmHWM in kB
	depth  map[int]int   // pid → how far below a root (0: a root)
	rssNow int64         // the sum of VmRSS at the last sample, in kB
}

func newTree(roots ...int) *tree {
	return &tree{roots: roots, peak: map[int]int64{}, depth: map[int]int{}}
}

// byDepth is the sum of the peaks at each depth below the roots: for
// run-mcp, itself, then its supervisor, then the targets.
func (t *tree) byDepth() []int64 {
	var out []int64
	for pid, kb := range t.peak {
		d := t.depth[pid]
		for len(out) <= d {
			out = append(out, 0)
		}
		out[d] += kb
	}
	return out
}

// sample scans /proc once: the roots and every descendant of theirs.
func (t *tree) sample() {
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	queue := append([]int(nil), t.roots...)
	depth := map[int]int{}
	t.rssNow = 0
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		hwm, rss := memKB(pid)
		if hwm > t.peak[pid] {
			t.peak[pid] = hwm
			t.depth[pid] = depth[pid]
		}
		t.rssNow += rss
		for _, c := range children[pid] {
			depth[c] = depth[pid] + 1
		}
		queue = append(queue, children[pid]...)
	}
}

func (t *tree) total() (kb int64, procs int) {
	for _, v := range t.peak {
		kb += v
	}
	return kb, len(t.peak)
}

// sampleTree samples the tree below pid until the returned function is
// called, which returns the sum of the peaks and how many processes had one.
func sampleTree(pid int) func() (int64, int) {
	t := newTree(pid)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			t.sample()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (int64, int) {
		close(done)
		wg.Wait()
		return t.total()
	}
}

// parentOf reads a process's parent from /proc/PID/stat (field 4, after
// the command name in parentheses, which may itself hold spaces).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// memKB is a live process's peak and current RSS (0 once it has exited).
func memKB(pid int) (hwm, rss int64) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	return statusKB(b, "VmHWM:"), statusKB(b, "VmRSS:")
}

func statusKB(status []byte, field string) int64 {
	i := bytes.Index(status, []byte(field))
	if i < 0 {
		return 0
	}
	f := bytes.Fields(status[i+len(field):])
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[0]), 10, 64)
	return n
}
