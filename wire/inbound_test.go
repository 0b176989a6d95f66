package wire

import (
	"bufio"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// A request the target cancels ends its handler with ErrWithdrawn and gets
// no response; one it does not cancel is answered. Numeric ids match however
// the cancellation writes them.
func TestTheTargetCanWithdrawItsRequest(t *testing.T) {
	s := newOSPipeServer(t)
	ended := make(chan error, 2)
	s.tr.SetRequestHandler(func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		if req.Method == "ping" {
			return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: req.ID, Result: []byte(`{}`)}, nil
		}
		<-ctx.Done()
		ended <- context.Cause(ctx)
		return nil, ctx.Err()
	})
	write := func(line string) {
		t.Helper()
		if _, err := s.stdout.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"name?"}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0,"reason":"not needed"}}`)
	select {
	case cause := <-ended:
		if !errors.Is(cause, ErrWithdrawn) || !strings.Contains(cause.Error(), "not needed") {
			t.Fatalf("the handler ended with %v, want ErrWithdrawn with the server's reason", cause)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the handler of the withdrawn request was never ended")
	}
	write(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	line, err := bufio.NewReader(s.stdinR).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"id":"p"`) {
		t.Fatalf("the first line the target got is %q: want the ping's answer, and none for the withdrawn request", line)
	}
}
