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
	set := func(path string, age time.Duration, sent []byte) net.Conn {
		ours, theirs := net.Pipe()
		t.Cleanup(func() { ours.Close(); theirs.Close() })
		done := make(chan struct{})
		close(done)
		early.done, early.conn, early.path, early.at, early.sent = done, ours, path, time.Now().Add(-age), sent
		return theirs
	}
	t.Cleanup(func() { early.done = nil })
	closed := func(peer net.Conn) bool {
		_ = peer.SetReadDeadline(time.Now().Add(time.Second))
		_, err := peer.Read(make([]byte, 1))
		return errors.Is(err, io.EOF) // an open one times out
	}

	set("/s/a.sock", 0, nil)
	if c, sent := Take("/s/a.sock"); c == nil || sent != nil {
		t.Fatalf("the early connection to the socket wanted was not handed out as dialled: %v, %q", c, sent)
	}
	if c, _ := Take("/s/a.sock"); c != nil {
		t.Error("the early connection was handed out twice")
	}

	peer := set("/s/a.sock", 0, nil)
	if c, _ := Take("/s/b.sock"); c != nil {
		t.Error("an early connection to another socket was handed out")
	}
	if !closed(peer) {
		t.Error("an early connection of no use was left open")
	}

	peer = set("/s/a.sock", freshFor+time.Second, nil)
	if c, _ := Take("/s/a.sock"); c != nil {
		t.Error("a stale early connection was handed out")
	}
	if !closed(peer) {
		t.Error("a stale early connection was left open")
	}

	// One that carries a call is never stale: closing it would cancel the
	// call, whose answer is on its way.
	line := []byte(`{"op":"call"}` + "\n")
	set("/s/a.sock", freshFor+time.Second, line)
	if c, sent := Take("/s/a.sock"); c == nil || string(sent) != string(line) {
		t.Errorf("an early connection carrying a call was not handed out with its line: %v, %q", c, sent)
	}
}
