package session

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// A connection whose request went while run-mcp started (predial.CallLine)
// is not written to again: the answer to that request is read, when it is
// the request the command makes; when it is not, nothing is sent, no answer
// is taken, and the connection is hung up (which cancels the early call).
func TestAskTakesTheEarlyAnswerOnlyForTheSameRequest(t *testing.T) {
	req := Request{Op: OpCall, Session: "dev", Tool: "echo", Args: []byte(`{"message":"hi"}`), Shorthand: []string{"message"}}
	line, err := req.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')

	for _, c := range []struct {
		name string
		sent []byte
	}{{"same", line}, {"other", []byte(`{"op":"call","session":"dev","tool":"echo","args":{"token":"sk-secret-1"}}` + "\n")}} {
		ours, daemon := net.Pipe()
		written := make(chan []byte, 1)
		go func() {
			if c.name == "same" {
				_, _ = daemon.Write([]byte(`{"code":0,"stdout":"echo: hi\n"}` + "\n"))
			}
			b, _ := io.ReadAll(daemon) // until Ask hangs up
			written <- b
		}()
		reply, err := (&Conn{c: ours, sent: c.sent, at: time.Now()}).Ask(context.Background(), req, 5*time.Second, nil)
		if b := <-written; len(b) != 0 {
			t.Errorf("%s: Ask wrote %q on a connection that already carried a request", c.name, b)
		}
		daemon.Close()
		var differs ErrEarlyDiffers
		switch {
		case c.name == "same" && (err != nil || reply.Stdout != "echo: hi\n"):
			t.Errorf("same request: got %+v, %v; want the early answer", reply, err)
		case c.name == "other" && !errors.As(err, &differs):
			t.Errorf("another request: got %+v, %v; want ErrEarlyDiffers", reply, err)
		case c.name == "other" && strings.Contains(err.Error(), "sk-secret"):
			t.Errorf("the refusal shows an argument, which may be a secret: %v", err)
		}
	}
}
