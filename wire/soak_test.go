package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// A write whose deadline passes halfway through a message (the target
// stopped reading with the pipe full) must not leave half a line on the
// pipe: once the target reads again, every line it gets is a whole message,
// and the next request arrives intact. Before the fix the rest of the
// message was dropped, so the target read the torn front glued to the next
// request: two messages lost, and the next call hung until its timeout.
func TestAWriteCutByItsDeadlineLeavesNoTornLine(t *testing.T) {
	s := newOSPipeServer(t)
	big := strings.Repeat("x", 4<<20) // far more than the pipe holds
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("big"), Method: "tools/call",
		Params: map[string]any{"pad": big}})
	if err == nil {
		t.Fatal("a request nobody read was answered")
	}
	// The next request takes the express path's write (SendAsync), which
	// must finish the cut message before it writes, as the slow path does.
	// (On a machine too busy to start the big write before its deadline,
	// nothing of it was written and the next request goes first: every line
	// must still be whole.)
	next := make(chan error, 1)
	key := mcp.NewRequestId("next").String()
	if err := s.tr.SendAsync(key, []byte(`{"jsonrpc":"2.0","id":"next","method":"ping"}`), func(_ *transport.JSONRPCResponse, err error) {
		next <- err
	}); err != nil {
		t.Fatalf("the next request was refused: %v", err)
	}
	// The target reads again.
	lines, stop := make(chan string), make(chan struct{})
	defer close(stop)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(s.stdinR, 8<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- line:
			case <-stop:
				return
			}
		}
	}()
	timeout := time.After(20 * time.Second)
	for {
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the target's stdin closed before the next request came")
			}
			line = l
		case <-timeout:
			t.Fatal("the next request never reached the target")
		}
		var msg struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("the target read a line that is not one whole message (%d bytes, starting %.60q): %v", len(line), line, err)
		}
		if msg.ID == "next" {
			if _, err := s.stdout.WriteString(`{"jsonrpc":"2.0","id":"next","result":{}}` + "\n"); err != nil {
				t.Fatal(err)
			}
			if err := <-next; err != nil {
				t.Fatalf("the request after the cut one failed: %v", err)
			}
			return
		}
	}
}
