//go:build unix

package predial

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// The early connection goes only to a command that wants that same socket,
// while it is fresh, and once; one of no use is closed (the daemon then
// drops it as it drops a probe).
func TestTake(t *testing.T) {
	set := func(path string, age time.Duration) net.Conn {
		ours, theirs := net.Pipe()
		t.Cleanup(func() { ours.Close(); theirs.Close() })
		early.conn, early.path, early.at = ours, path, time.Now().Add(-age)
		return theirs
	}
	closed := func(peer net.Conn) bool {
		_ = peer.SetReadDeadline(time.Now().Add(time.Second))
		_, err := peer.Read(make([]byte, 1))
		return errors.Is(err, io.EOF) // an open one times out
	}

	set("/s/a.sock", 0)
	if c := Take("/s/a.sock"); c == nil {
		t.Fatal("the early connection to the socket wanted was not handed out")
	}
	if c := Take("/s/a.sock"); c != nil {
		t.Error("the early connection was handed out twice")
	}

	peer := set("/s/a.sock", 0)
	if c := Take("/s/b.sock"); c != nil {
		t.Error("an early connection to another socket was handed out")
	}
	if !closed(peer) {
		t.Error("an early connection of no use was left open")
	}

	peer = set("/s/a.sock", freshFor+time.Second)
	if c := Take("/s/a.sock"); c != nil {
		t.Error("a stale early connection was handed out")
	}
	if !closed(peer) {
		t.Error("a stale early connection was left open")
	}
}
