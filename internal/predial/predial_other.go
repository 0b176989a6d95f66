//go:build !unix

package predial

import (
	"net"
	"os"
)

// Take returns nil: on Windows a session's daemon is reached over a named
// pipe, dialled by the command itself.
func Take(string) (net.Conn, []byte) { return nil, nil }

// Interrupts returns false: no call is sent early here.
func Interrupts() (<-chan os.Signal, bool) { return nil, false }
