package supervise

import (
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
// not start (Errno, from execve), or ended (Code, or Signal when one ended it).
type Status struct {
	Kind   string // "pid", "error", "exit" or "signal"
	Number int
}

// Status kinds.
const (
	KindPid    = "pid"
	KindError  = "error"
	KindExit   = "exit"
	KindSignal = "signal"
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
	case KindPid, KindError, KindExit, KindSignal:
		return Status{Kind: kind, Number: n}, nil
	}
	return Status{}, fmt.Errorf("the supervisor wrote an unknown status %q", kind)
}
