//go:build unix

package session

import (
	"context"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// unixPair is two connected Unix stream sockets.
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

// An early call's answer that has arrived is taken without waiting; one
// still on its way is left to Ask, which loses nothing AnswerNow read.
func TestAnswerNowTakesOnlyAnAnswerThatArrived(t *testing.T) {
	req := Request{Op: OpCall, Session: "dev", Tool: "echo", Args: []byte(`{}`)}
	line, err := req.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	answer := `{"code":0,"stdout":"echo: hi\n"}` + "\n"

	ours, daemon := unixPair(t)
	if _, err := daemon.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	reply, answered, err := (&Conn{c: ours, sent: line}).AnswerNow(req)
	if !answered || err != nil || reply.Stdout != "echo: hi\n" {
		t.Errorf("an answer that arrived: got %+v, %v, %v", reply, answered, err)
	}

	// Half of it now, the rest later.
	ours, daemon = unixPair(t)
	k := &Conn{c: ours, sent: line}
	if _, err := daemon.Write([]byte(answer[:10])); err != nil {
		t.Fatal(err)
	}
	if _, answered, _ := k.AnswerNow(req); answered {
		t.Fatal("half an answer was taken as one")
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = daemon.Write([]byte(answer[10:]))
	}()
	reply, err = k.Ask(context.Background(), req, 5*time.Second, nil)
	if err != nil || reply.Stdout != "echo: hi\n" {
		t.Errorf("the rest of the answer, read by Ask: got %+v, %v", reply, err)
	}

	// Another request is never answered from the early line's answer.
	ours, daemon = unixPair(t)
	if _, err := daemon.Write([]byte(answer)); err != nil {
		t.Fatal(err)
	}
	other := req
	other.Tool = "add"
	if _, answered, _ := (&Conn{c: ours, sent: line}).AnswerNow(other); answered {
		t.Error("the early answer was taken for another request")
	}
}
