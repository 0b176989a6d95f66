//go:build !unix

package predial

import (
	"net"
	"os"
	"time"
)

// Take returns nil: on Windows a session's daemon is reached over a named
// pipe, dialled by the command itself.
func Take(string) (net.Conn, []byte, time.Time) { return nil, nil, time.Time{} }

// Interrupts returns false: no call is sent early here.
func Interrupts() (<-chan os.Signal, bool) { return nil, false }

// AnswerWait is how long a call sent early waits for its answer (none is,
// here).
const AnswerWait = 345 * time.Second
