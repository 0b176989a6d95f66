package intercept

import (
	"os"
	"strconv"
	"strings"
)

// keptResults bounds Read's map: the ids of the results this Interceptor
// spilled, oldest first, with the bytes of their files, and apart from
// them the ids of results an earlier run-mcp left, remembered once read
// (so that later pages are read from that very file). Reading an old result
// must never push out a newer one of ours.
type keptResults struct {
	most      int   // results kept at most, of each kind
	mostBytes int64 // bytes of our files kept at most
	ours      []string
	bytes     int64
	earlier   []string
}

// remember files a result for Read. Past the bound the oldest are
// forgotten, and the files this Interceptor wrote for them deleted (after
// the lock is released: a delete is a system call); the newest is always
// kept. A result already remembered stays where it is.
func (i *Interceptor) remember(id string, s spilled) {
	i.mu.Lock()
	if _, ok := i.results[id]; ok {
		i.mu.Unlock()
		return
	}
	i.results[id] = s
	k := &i.kept
	var gone []string
	if s.ours {
		k.ours = append(k.ours, id)
		k.bytes += s.size()
		for len(k.ours) > 1 && (len(k.ours) > k.most || k.bytes > k.mostBytes) {
			old := i.results[k.ours[0]]
			delete(i.results, k.ours[0])
			k.ours = k.ours[1:]
			k.bytes -= old.size()
			gone = append(gone, old.path)
		}
	} else {
		k.earlier = append(k.earlier, id)
		for len(k.earlier) > k.most {
			delete(i.results, k.earlier[0])
			k.earlier = k.earlier[1:]
		}
	}
	i.mu.Unlock()
	for _, path := range gone {
		// Best effort: a file that cannot go now (open elsewhere, on
		// Windows) is left to Prune; until then Read finds it as it finds
		// a file of an earlier run-mcp.
		_ = os.Remove(path)
	}
}

// size is the bytes of a result's file as it was written.
func (s spilled) size() int64 {
	if s.written == nil {
		return 0
	}
	return s.written.Size()
}

// forgotten says id is one this Interceptor handed out and no longer
// keeps: its result was forgotten to keep within the bound.
func (i *Interceptor) forgotten(id string) bool {
	digits, ok := strings.CutPrefix(id, "r")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil {
		return false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	_, kept := i.results[id]
	return !kept && i.firstID > 0 && n >= i.firstID && n <= i.lastID
}
