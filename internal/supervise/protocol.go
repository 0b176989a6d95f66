package supervise

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Arg, as argv[1], turns the run-mcp binary into a supervisor. argv[2] is
// the resolved path of the target and argv[2:] its argv (argv[0] included).
const Arg = "__run-mcp-supervise"

// The fds the supervisor gets besides the target's stdio.
const (
	StatusFD  = 3 // supervisor → run-mcp: Status lines
	ControlFD = 4 // run-mcp → supervisor: Control bytes; end of file means run-mcp is gone
)

// Control bytes run-mcp writes to the supervisor.
const (
	Terminate byte = 'T' // SIGTERM to the target's process group
	KillAll   byte = 'K' // SIGKILL to everything below the supervisor, then exit
)

// Status is one line the supervisor writes: the target started (Pid), could
// not start (Errno, from execve), ended (Code, or Signal when one ended it),
// and, last, that nothing is left below the supervisor (Done), which then
// exits: run-mcp need not wait for that exit to know everything is gone.
type Status struct {
	Kind   string // "pid", "error", "exit", "signal" or "done"
	Number int
}

// Status kinds.
const (
	KindPid    = "pid"
	KindError  = "error"
	KindExit   = "exit"
	KindSignal = "signal"
	KindDone   = "done"
)

// String is the line as written, without its newline.
func (s Status) String() string { return s.Kind + " " + strconv.Itoa(s.Number) }

// ParseStatus reads one line written by the supervisor.
func ParseStatus(line string) (Status, error) {
	kind, num, ok := strings.Cut(strings.TrimSpace(line), " ")
	n, err := strconv.Atoi(num)
	if !ok || err != nil {
		return Status{}, fmt.Errorf("the supervisor wrote %q, which is not a status line", line)
	}
	switch kind {
	case KindPid, KindError, KindExit, KindSignal, KindDone:
		return Status{Kind: kind, Number: n}, nil
	}
	return Status{}, fmt.Errorf("the supervisor wrote an unknown status %q", kind)
}

// SpecFD is, for a spare supervisor (started with Arg alone, before run-mcp
// knows what it will run), the Unix socket on which it receives its Target
// and, as SCM_RIGHTS, the target's stdin, stdout and stderr.
const SpecFD = 5

// Target is what a spare supervisor is told to run: the resolved path, the
// argv (argv[0] included), the whole environment and the directory to run
// it in ("" for the supervisor's own).
type Target struct {
	Path string
	Argv []string
	Env  []string
	Dir  string
}

// maxTarget bounds a Target on the wire: far above what execve accepts, so
// it only refuses garbage.
const maxTarget = 64 << 20

// Encode is t as sent: a 4-byte big-endian length, then the path, the
// directory, the argv count, the argv and the environment, each ended by a
// NUL byte (execve and chdir take no NUL inside a string either).
func (t Target) Encode() []byte {
	var b []byte
	b = append(b, 0, 0, 0, 0)
	add := func(s string) { b = append(append(b, s...), 0) }
	add(t.Path)
	add(t.Dir)
	add(strconv.Itoa(len(t.Argv)))
	for _, a := range t.Argv {
		add(a)
	}
	for _, e := range t.Env {
		add(e)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// targetLen reads the length header Encode wrote.
func targetLen(header []byte) (int, error) {
	n := int(binary.BigEndian.Uint32(header))
	if n > maxTarget {
		return 0, fmt.Errorf("the spare supervisor was sent a %d-byte target, over the %d-byte bound", n, maxTarget)
	}
	return n, nil
}

// DecodeTarget reads what Encode wrote, the length header excluded.
func DecodeTarget(body []byte) (Target, error) {
	if len(body) == 0 || body[len(body)-1] != 0 {
		return Target{}, errors.New("the spare supervisor was sent a target that does not end with a NUL byte")
	}
	parts := strings.Split(string(body[:len(body)-1]), "\x00")
	if len(parts) < 3 {
		return Target{}, errors.New("the spare supervisor was sent a target without its argv count")
	}
	argc, err := strconv.Atoi(parts[2])
	if err != nil || argc < 1 || argc > len(parts)-3 {
		return Target{}, fmt.Errorf("the spare supervisor was sent a bad argv count %q", parts[2])
	}
	t := Target{Path: parts[0], Dir: parts[1], Argv: parts[3 : 3+argc], Env: parts[3+argc:]}
	if t.Path == "" {
		return Target{}, errors.New("the spare supervisor was sent a target without a path")
	}
	return t, nil
}
