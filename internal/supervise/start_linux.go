package supervise

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"syscall"
)

// start starts target num on the three fds run-mcp sent, in a process
// group of its own (so that its descendants carry its pid as their group
// id), with SIGKILL as its parent-death signal (it dies with the
// supervisor). It runs on the locked main thread.
//
// A group, not a session: setsid(2) also puts the process in a scheduler
// autogroup of its own (CONFIG_SCHED_AUTOGROUP, on in most distributions),
// and a fresh group, with no load history, gets a sliver of the CPU beside
// busy ones, so a server in one started several times slower whenever the
// machine was busy. The terminal is kept away all the same: the supervisor
// gave up its controlling terminal (dropTerminal), so its targets have none.
//
// A target started while the supervisor runs no other goes straight to
// execve: whatever reaches the supervisor then is its own (a one-shot
// command's server, the session daemon's). Any other goes through the exec
// trampoline, which makes it a child subreaper first, so that its orphans
// stay below it while it lives instead of mixing with another target's.
func (s *server) start(num uint32, payload []byte, fds []int) {
	t, err := DecodeTarget(payload)
	if err == nil && len(fds) != 3 {
		err = errors.New("a start without the target's three stdio fds")
	}
	if err != nil {
		closeFDs(fds...)
		s.mu.Lock()
		s.send(EventFailed, num, int64(syscall.EINVAL))
		s.mu.Unlock()
		return
	}
	var inodes [3]uint64
	for i, fd := range fds {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
			inodes[i] = st.Ino
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.records) > 0 {
		s.settle() // what reached the supervisor so far is the others'
	}
	trampoline := len(s.records) > 0
	path, argv := t.Path, t.Argv
	files := []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])}
	report := [2]int{-1, -1}
	if trampoline {
		if err := syscall.Pipe2(report[:], syscall.O_CLOEXEC); err != nil {
			closeFDs(fds...)
			s.send(EventFailed, num, int64(errnoOf(err)))
			return
		}
		path, argv = "/proc/self/exe", execCommand(s.argv0, t)
		files = append(files, uintptr(report[1])) // execErrFD
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Dir: t.Dir, Env: t.Env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}})
	closeFDs(append(fds, report[1])...) // the target has its own copies
	if err != nil {
		closeFDs(report[0])
		s.send(EventFailed, num, int64(errnoOf(err)))
		return
	}
	r := &record{id: num, pid: pid, inodes: inodes, trampolined: trampoline, alive: true, starting: trampoline, remnants: map[int]bool{}}
	s.records[num] = r
	defer s.rearm() // a second target makes the first one's orphans silent
	s.byTarget[pid] = r
	s.marks[pid] = []*record{r} // a pid now ours: any older mark with it is stale
	for _, ino := range inodes {
		if ino != 0 {
			s.inodes[ino] = r
		}
	}
	if !trampoline {
		s.send(EventStarted, num, int64(pid))
		return
	}
	_ = syscall.SetNonblock(report[0], true) // read through the poller: no thread per start
	go s.awaitExec(r, os.NewFile(uintptr(report[0]), "exec report"))
}

// awaitExec reads the trampoline's report: end of file once it has become
// the target, or the errno of its failed execve.
func (s *server) awaitExec(r *record, report *os.File) {
	var b [4]byte
	n, _ := io.ReadFull(report, b[:])
	_ = report.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	r.starting = false
	if n == len(b) {
		r.failed = true
		s.send(EventFailed, r.id, int64(binary.LittleEndian.Uint32(b[:])))
		if !r.alive {
			s.drop(r)
		}
		return
	}
	s.send(EventStarted, r.id, int64(r.pid))
	if r.exit != nil {
		s.send(EventExited, r.id, int64(*r.exit))
		s.checkEmpty(r)
	}
}

func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return syscall.EINVAL
}
