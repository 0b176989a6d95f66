package supervise

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ConnFD is the supervisor's end of its socket to run-mcp: a SOCK_SEQPACKET
// Unix socket, so that every request and every event is one message, and
// run-mcp's exit, however it happens, is end of file.
const ConnFD = 3

// Request kinds, run-mcp to the supervisor. Every request carries a number,
// Num, to which the supervisor answers: a start with Started or Failed (its
// number is the target's id from then on), the others with Ack.
const (
	// KindStart starts a target: the payload is the Target (Encode), and the
	// message carries the target's stdin, stdout and stderr as SCM_RIGHTS.
	// A Target too long for one message comes in KindStartPart messages
	// first, then the rest in a KindStart.
	KindStart     byte = 'S'
	KindStartPart byte = 's'
	// KindTerm sends SIGTERM to target ID's process group, and to what it
	// left behind once it has exited.
	KindTerm byte = 'T'
	// KindKill kills everything of target ID: the target, its descendants
	// and its remnants (what it left when it exited), until none is left.
	KindKill byte = 'K'
	// KindRelease is KindKill, after which the supervisor forgets the target
	// once nothing of it is left: run-mcp no longer asks about it.
	KindRelease byte = 'R'
)

// Event kinds, the supervisor to run-mcp.
const (
	EventStarted byte = 'p' // Num started as PID Value
	EventFailed  byte = 'f' // Num could not start: errno Value (from chdir or execve)
	EventExited  byte = 'x' // target Num ended: Value is its raw wait status
	EventEmpty   byte = 'e' // nothing of target Num is left running
	EventAck     byte = 'a' // request Num was carried out
)

// Request is one message from run-mcp. ID names the target of a term, kill
// or release; Payload is a start's Target, or part of it.
type Request struct {
	Kind    byte
	Num     uint32
	ID      uint32
	Payload []byte
}

const requestHeader = 9 // kind, Num, ID

// MaxPart bounds the payload of one start message, well under the socket's
// send buffer (a datagram must fit in it whole); a longer Target is sent in
// parts.
const MaxPart = 32 << 10

// Encode is r as sent.
func (r Request) Encode() []byte {
	b := make([]byte, requestHeader, requestHeader+len(r.Payload))
	b[0] = r.Kind
	binary.LittleEndian.PutUint32(b[1:], r.Num)
	binary.LittleEndian.PutUint32(b[5:], r.ID)
	return append(b, r.Payload...)
}

// DecodeRequest reads one message from run-mcp. The payload aliases b.
func DecodeRequest(b []byte) (Request, error) {
	if len(b) < requestHeader {
		return Request{}, fmt.Errorf("run-mcp sent the supervisor a %d-byte message, shorter than any request", len(b))
	}
	r := Request{Kind: b[0], Num: binary.LittleEndian.Uint32(b[1:]), ID: binary.LittleEndian.Uint32(b[5:]), Payload: b[requestHeader:]}
	switch r.Kind {
	case KindStart, KindStartPart, KindTerm, KindKill, KindRelease:
		return r, nil
	}
	return Request{}, fmt.Errorf("run-mcp sent the supervisor an unknown request %q", r.Kind)
}

// Event is one message from the supervisor.
type Event struct {
	Kind  byte
	Num   uint32
	Value int64
}

// EventSize is the length of every event.
const EventSize = 13

// Encode is e as sent.
func (e Event) Encode() []byte {
	b := make([]byte, EventSize)
	b[0] = e.Kind
	binary.LittleEndian.PutUint32(b[1:], e.Num)
	binary.LittleEndian.PutUint64(b[5:], uint64(e.Value))
	return b
}

// DecodeEvent reads one message from the supervisor.
func DecodeEvent(b []byte) (Event, error) {
	if len(b) != EventSize {
		return Event{}, fmt.Errorf("run-mcp's supervisor sent a %d-byte message, not a %d-byte event", len(b), EventSize)
	}
	e := Event{Kind: b[0], Num: binary.LittleEndian.Uint32(b[1:]), Value: int64(binary.LittleEndian.Uint64(b[5:]))}
	switch e.Kind {
	case EventStarted, EventFailed, EventExited, EventEmpty, EventAck:
		return e, nil
	}
	return Event{}, fmt.Errorf("run-mcp's supervisor sent an unknown event %q", e.Kind)
}

// Target is what the supervisor is told to run: the resolved path, the
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

// TargetComplete says whether b, the parts of a start received so far,
// holds a whole Target; an error when its length header is garbage.
func TargetComplete(b []byte) (bool, error) {
	if len(b) < 4 {
		return false, nil
	}
	n := int(binary.BigEndian.Uint32(b))
	if n > maxTarget {
		return false, fmt.Errorf("run-mcp sent the supervisor a %d-byte target, over the %d-byte bound", n, maxTarget)
	}
	if len(b) > 4+n {
		return false, fmt.Errorf("run-mcp sent the supervisor %d bytes for a %d-byte target", len(b)-4, n)
	}
	return len(b) == 4+n, nil
}

// DecodeTarget reads what Encode wrote, the length header included.
func DecodeTarget(b []byte) (Target, error) {
	if ok, err := TargetComplete(b); !ok {
		if err == nil {
			err = errors.New("run-mcp sent the supervisor a target cut short")
		}
		return Target{}, err
	}
	body := b[4:]
	if len(body) == 0 || body[len(body)-1] != 0 {
		return Target{}, errors.New("run-mcp sent the supervisor a target that does not end with a NUL byte")
	}
	parts := strings.Split(string(body[:len(body)-1]), "\x00")
	if len(parts) < 3 {
		return Target{}, errors.New("run-mcp sent the supervisor a target without its argv count")
	}
	argc, err := strconv.Atoi(parts[2])
	if err != nil || argc < 1 || argc > len(parts)-3 {
		return Target{}, fmt.Errorf("run-mcp sent the supervisor a bad argv count %q", parts[2])
	}
	t := Target{Path: parts[0], Dir: parts[1], Argv: parts[3 : 3+argc], Env: parts[3+argc:]}
	if t.Path == "" {
		return Target{}, errors.New("run-mcp sent the supervisor a target without a path")
	}
	return t, nil
}
