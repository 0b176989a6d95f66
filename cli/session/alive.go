package session

import (
	"errors"
	"syscall"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// ProcAlive says whether pid is a live process and, when start is known,
// the same process that was recorded (not a reused pid).
func ProcAlive(pid int, start uint64) bool {
	got, ok := procStart(pid)
	return ok && (start == 0 || got == 0 || got == start)
}

// StartOf is a process's start time for a record (0 where unknown).
func StartOf(pid int) uint64 {
	s, _ := procStart(pid)
	return s
}

// Alive judges a session by its daemon's pid and start time and its socket
// (file, or named pipe), never by how fast it answers: a daemon that is busy or stopped
// (SIGSTOP) is alive.
func (r *Record) Alive() bool {
	if !ProcAlive(r.DaemonPid, r.DaemonStart) {
		return false
	}
	return safesocket.Exists(r.Socket)
}

// Unreachable says the record's daemon still runs but its socket is gone,
// removed by something that cleans the temp directory (systemd-tmpfiles,
// tmpreaper) under a session that lived long. No command can reach that
// daemon again, so pruning its record alone would leave it, and its server,
// running with nothing to stop them: it must be stopped (Close).
func (r *Record) Unreachable() bool {
	return ProcAlive(r.DaemonPid, r.DaemonStart) && !safesocket.Exists(r.Socket)
}

// waitExit waits up to limit for a process to be gone.
func waitExit(pid int, start uint64, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if !ProcAlive(pid, start) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// signal sends sig to pid when it is still the recorded process.
func signal(pid int, start uint64, sig syscall.Signal) error {
	if !ProcAlive(pid, start) {
		return nil
	}
	if err := kill(pid, start, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}
