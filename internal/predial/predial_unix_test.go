//go:build unix

package predial

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
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
	if c, sent, _ := Take("/s/a.sock"); c == nil || sent != nil {
		t.Fatalf("the early connection to the socket wanted was not handed out as dialled: %v, %q", c, sent)
	}
	if c, _, _ := Take("/s/a.sock"); c != nil {
		t.Error("the early connection was handed out twice")
	}

	peer := set("/s/a.sock", 0, nil)
	if c, _, _ := Take("/s/b.sock"); c != nil {
		t.Error("an early connection to another socket was handed out")
	}
	if !closed(peer) {
		t.Error("an early connection of no use was left open")
	}

	peer = set("/s/a.sock", freshFor+time.Second, nil)
	if c, _, _ := Take("/s/a.sock"); c != nil {
		t.Error("a stale early connection was handed out")
	}
	if !closed(peer) {
		t.Error("a stale early connection was left open")
	}

	// One that carries a call is never stale: closing it would cancel the
	// call, whose answer is on its way.
	line := []byte(`{"op":"call"}` + "\n")
	set("/s/a.sock", freshFor+time.Second, line)
	if c, sent, _ := Take("/s/a.sock"); c == nil || string(sent) != string(line) {
		t.Errorf("an early connection carrying a call was not handed out with its line: %v, %q", c, sent)
	}
}

// unixPair is two connected Unix stream sockets, as net.Conns.
func unixPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "pair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return conn(fds[0]), conn(fds[1])
}

// await takes a whole answer (or the last bytes before the daemon hung up),
// and leaves anything else to the command with nothing lost: an interrupt
// (put back for the command to act on) or a daemon that hung up without a
// word.
func TestAwait(t *testing.T) {
	t.Cleanup(func() { early.conn, early.read, early.signals = nil, nil, nil })
	answer := `{"code":0,"stdout":"echo: hi\n"}`
	setUp := func() net.Conn {
		ours, daemon := unixPair(t)
		early.conn, early.read, early.signals = ours, nil, make(chan os.Signal, 1)
		return daemon
	}

	daemon := setUp()
	_, _ = daemon.Write([]byte(answer + "\n"))
	if got, ok := await(); !ok || string(got) != answer {
		t.Errorf("a whole answer: got %q, %v", got, ok)
	}

	daemon = setUp()
	_, _ = daemon.Write([]byte(answer))
	daemon.Close()
	if got, ok := await(); !ok || string(got) != answer {
		t.Errorf("an answer without its newline before the daemon hung up: got %q, %v", got, ok)
	}

	daemon = setUp()
	daemon.Close()
	if got, ok := await(); ok {
		t.Errorf("a daemon that hung up without a word: got %q, taken as an answer", got)
	}

	// A daemon that never answers is waited for AnswerWait from the send,
	// then left to the command (whose own wait, from the send too, is over).
	daemon = setUp()
	early.at = time.Now().Add(50*time.Millisecond - AnswerWait)
	_, _ = daemon.Write([]byte(answer[:5]))
	if got, ok := await(); ok {
		t.Errorf("a silent daemon: got %q, taken as an answer", got)
	}
	if string(early.read) != answer[:5] {
		t.Errorf("what a silent daemon wrote was not kept for the command: %q", early.read)
	}
	early.at = time.Now()

	// An answer over maxAnswer is the command's to read and refuse.
	flood := setUp()
	go func() {
		_, _ = flood.Write(bytes.Repeat([]byte("x"), maxAnswer+4096))
		flood.Close()
	}()
	if _, ok := await(); ok || len(early.read) < maxAnswer {
		t.Errorf("an answer over %d bytes: taken %v, %d bytes kept for the command", maxAnswer, ok, len(early.read))
	}

	// Half an answer, then Ctrl-C: the command gets the signal and the
	// connection, and reads the whole answer through it.
	daemon = setUp()
	_, _ = daemon.Write([]byte(answer[:10]))
	go func() { early.signals <- os.Interrupt }()
	if _, ok := await(); ok {
		t.Fatal("an interrupted wait was taken as an answer")
	}
	select {
	case s := <-early.signals:
		if s != os.Interrupt {
			t.Errorf("the signal put back is %v", s)
		}
	default:
		t.Error("the interrupt was not put back for the command")
	}
	early.done, early.path, early.sent = closedChan(), "/s/a.sock", []byte("line\n")
	c, _, _ := Take("/s/a.sock")
	_, _ = daemon.Write([]byte(answer[10:] + "\n"))
	got := make([]byte, len(answer)+1)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != answer+"\n" {
		t.Errorf("the command read %q, %v; want the whole answer", got, err)
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
