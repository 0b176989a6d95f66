//go:build unix

package predial

import (
	"net"
	"os"
	"sync"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// dialWait bounds the early dial: a daemon's socket that exists answers at
// once (or refuses at once); more is a daemon in trouble, which the command
// reports with its own dial.
const dialWait = 50 * time.Millisecond

// freshFor is how long the early connection stays worth taking: the daemon
// drops a connection that sends nothing for far longer (10 s), and a command
// that took this long to get its request ready has lost nothing by dialling
// again.
const freshFor = 2 * time.Second

// early is the connection dialled during the package inits: process-wide
// state, as the init that makes it is, taken at most once.
var early struct {
	mu   sync.Mutex
	conn net.Conn
	path string
	at   time.Time
}

func init() {
	name, ok := Session(os.Args[1:])
	if !ok {
		return
	}
	// The same checked private directory the command dials in: a socket
	// anywhere else is never reached.
	dir, err := safesocket.Dir()
	if err != nil {
		return
	}
	path := safesocket.Path(dir, name)
	c, err := safesocket.Dial(path, dialWait)
	if err != nil {
		return
	}
	early.conn, early.path, early.at = c, path, time.Now()
}

// Take returns the early connection if it was dialled to path and is still
// fresh, and nil otherwise (closing one that is of no use). It hands the
// connection out once.
func Take(path string) net.Conn {
	early.mu.Lock()
	defer early.mu.Unlock()
	c := early.conn
	if c == nil {
		return nil
	}
	early.conn = nil
	if early.path != path || time.Since(early.at) > freshFor {
		_ = c.Close()
		return nil
	}
	return c
}
