package supervise

import (
	"cmp"
	"errors"
	"slices"
	"syscall"
)

// round runs on every SIGCHLD: see settle.
func (s *server) round() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.shutting {
		s.settle()
	}
}

// settle reaps what ended, reports the targets' ends, gives every new child
// (an orphan reparented here) to the records it belongs to, kills again
// what is being killed, and reports the targets of which nothing is left.
// It runs on every SIGCHLD, before every request is carried out, and every
// second while an orphan may reach the supervisor with no SIGCHLD to tell
// (its parent was not the supervisor's child; see unsettled): the sooner an
// orphan is attributed, the fewer records it could be taken for. Called
// with mu held.
func (s *server) settle() {
	s.rounds++
	lost := map[*record]bool{} // records that lost a child of the supervisor this round
	reapAll(func(pid int, ws syscall.WaitStatus) { s.died(pid, ws, lost) })
	// A parent that died while the children were listed is reaped after
	// the listing: its orphans, listed already, are attributed again with
	// it among the records that lost a child.
	for {
		s.attribute(lost)
		var more bool
		reapAll(func(pid int, ws syscall.WaitStatus) { more = true; s.died(pid, ws, lost) })
		if !more {
			break
		}
	}
	s.pruneMarks()
	for _, r := range s.sorted() {
		if r.killing {
			s.sweep(r)
		}
		s.checkEmpty(r)
	}
	s.rearm()
}

// pruneMarks forgets the marks no process bears any more: once nothing is
// in the group (or session) of an ended process, its pid may be reused,
// and a stranger bearing it must not be taken for one of ours. (A remnant's
// session whose leader's group emptied while other groups of it live on is
// forgotten with it: those are then known by their pipes, or as orphans.)
func (s *server) pruneMarks() {
	for pid := range s.marks {
		if s.byTarget[pid] == nil && s.remnants[pid] == nil && errors.Is(syscall.Kill(-pid, 0), syscall.ESRCH) {
			delete(s.marks, pid)
		}
	}
}

// silent says whether an orphan may have reached the supervisor with no
// SIGCHLD to tell: one whose parent was below a target started without the
// trampoline while other targets run (whose records it could be taken for),
// or below a remnant.
func (s *server) silent() bool {
	for _, r := range s.records {
		if len(r.remnants) > 0 || r.alive && !r.trampolined && len(s.records) > 1 {
			return true
		}
	}
	return false
}

// reapAll reaps every child that has ended, calling died for each; it says
// whether the supervisor has no child left at all.
func reapAll(died func(int, syscall.WaitStatus)) (none bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || pid <= 0 {
			return errors.Is(err, syscall.ECHILD)
		}
		died(pid, ws)
	}
}

// died notes that child pid was reaped with status ws.
func (s *server) died(pid int, ws syscall.WaitStatus, lost map[*record]bool) {
	delete(s.unclaimed, pid)
	if r := s.byTarget[pid]; r != nil {
		delete(s.byTarget, pid)
		r.alive = false
		lost[r] = true
		switch {
		case r.failed:
			s.drop(r)
		case r.starting:
			r.exit = &ws // reported once its start is
		default:
			s.send(EventExited, r.id, int64(ws))
		}
		return
	}
	for _, r := range s.remnants[pid] {
		delete(r.remnants, pid)
		lost[r] = true
	}
	delete(s.remnants, pid)
}

// attribute gives each child of the supervisor that is neither a target
// nor a known remnant to the records it belongs to.
func (s *server) attribute(lost map[*record]bool) {
	for _, pid := range ownChildren(s.self) {
		if s.byTarget[pid] != nil || s.remnants[pid] != nil {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.zombie() {
			continue // reaped in a moment
		}
		owners := s.claim(pid, st, lost)
		if len(owners) == 0 {
			// Nothing could have left it here but a child whose end is not
			// reaped yet; one a round later is nobody's, and is killed.
			if first, seen := s.unclaimed[pid]; !seen {
				s.unclaimed[pid] = s.rounds
			} else if first < s.rounds {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			continue
		}
		delete(s.unclaimed, pid)
		s.remnants[pid] = owners
		s.marks[pid] = owners
		for _, r := range owners {
			r.remnants[pid] = true
			r.emptied = false
		}
	}
}

// claim names the records an orphan belongs to, surest first:
//
//   - its process group is a target's (a target leads one) or its session or
//     group is a remnant's (a daemon that called setsid, and its own
//     children);
//   - it holds a target's stdin, stdout or stderr pipe;
//   - else the records that lost a child of the supervisor this round (what
//     a target or remnant leaves reparents here at its death), and those
//     being killed (whose processes die and leave orphans);
//   - else the records whose processes are not below a subreaper of their
//     own, whose orphans arrive here whenever a parent among them dies: a
//     target started without the trampoline, and every record's remnants.
//
// Several records in one of the last two cases means that several ended at
// once and the orphan bears no mark of any: it belongs to each, and is
// killed with the first of them to be killed.
func (s *server) claim(pid int, st procStat, lost map[*record]bool) []*record {
	if owners := s.marks[st.sid]; len(owners) > 0 {
		return owners
	}
	if owners := s.marks[st.pgid]; len(owners) > 0 {
		return owners
	}
	for _, ino := range stdioInodes(pid) {
		if r := s.inodes[ino]; ino != 0 && r != nil {
			return []*record{r}
		}
	}
	var owners []*record
	for _, r := range s.sorted() {
		if lost[r] || r.killing {
			owners = append(owners, r)
		}
	}
	if len(owners) > 0 {
		return owners
	}
	for _, r := range s.sorted() {
		if r.alive && !r.trampolined || len(r.remnants) > 0 {
			owners = append(owners, r)
		}
	}
	return owners
}

// sweep sends SIGKILL to everything of r: its target while it lives, its
// remnants, and every descendant of them. What a killed process's children
// become (orphans, reparented to the target or here) is found by the next
// round, which sweeps again while anything of r is left.
func (s *server) sweep(r *record) {
	var roots []int
	if r.alive {
		roots = append(roots, r.pid)
		// Its group too: a member the walk missed (forked meanwhile). Only
		// while it is unreaped is its pid surely not another's group id.
		_ = syscall.Kill(-r.pid, syscall.SIGKILL)
	}
	for pid := range r.remnants {
		roots = append(roots, pid)
	}
	if len(roots) == 0 {
		return
	}
	for _, pid := range append(descendants(roots...), roots...) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// checkEmpty reports r once nothing of it is left, and forgets it once
// run-mcp has released it too.
func (s *server) checkEmpty(r *record) {
	if r.alive || r.starting || r.failed || len(r.remnants) > 0 {
		return
	}
	if !r.emptied {
		r.emptied = true
		s.send(EventEmpty, r.id, 0)
	}
	if r.released {
		s.drop(r)
	}
}

// drop forgets r.
func (s *server) drop(r *record) {
	delete(s.records, r.id)
	if s.byTarget[r.pid] == r {
		delete(s.byTarget, r.pid)
	}
	for pid, owners := range s.marks {
		if i := slices.Index(owners, r); i >= 0 {
			if owners = slices.Delete(slices.Clone(owners), i, i+1); len(owners) == 0 {
				delete(s.marks, pid)
			} else {
				s.marks[pid] = owners
			}
		}
	}
	for _, ino := range r.inodes {
		if s.inodes[ino] == r {
			delete(s.inodes, ino)
		}
	}
}

// sorted lists the records by id, so that an ambiguous orphan's owners come
// in a stable order.
func (s *server) sorted() []*record {
	out := make([]*record, 0, len(s.records))
	for _, r := range s.records {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return cmp.Compare(a.id, b.id) })
	return out
}
