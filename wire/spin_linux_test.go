package wire

import (
	"context"
	"runtime"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/spinread"
)

// trying starts spec with a Spawner whose readers try for answers due, on
// one P as the agent server runs, and a transport on it.
func trying(t *testing.T, spec Spec) (*Process, *Transport) {
	t.Helper()
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	sp := NewSpawner()
	t.Cleanup(sp.Close)
	p, err := Start(sp, spec)
	if err != nil {
		t.Fatal(err)
	}
	tr := NewTransport(spinread.New(p.Stdout(), spinread.NewBudget(2)), p.Stdin(), &Evidence{})
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(); _ = tr.Close(); tr.Wait() })
	return p, tr
}

// answerer answers every request line with an empty result of its id.
var answerer = Spec{Command: "sed", Args: []string{"-u", `s/.*"id":\([0-9]*\).*/{"jsonrpc":"2.0","id":\1,"result":{}}/`}}

func TestATryingReaderAnswersEveryCallInTurn(t *testing.T) {
	_, tr := trying(t, answerer)
	for i := range 500 {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i)), Method: "ping"})
		cancel()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if resp.ID.String() != mcp.NewRequestId(int64(i)).String() || string(resp.Result) != "{}" {
			t.Fatalf("call %d answered %v %s", i, resp.ID, resp.Result)
		}
	}
}

func TestATryingReaderReadsOnAfterItsServerExitsLeavingStdoutOpen(t *testing.T) {
	// The server reads one line and exits; the sleep it started keeps its
	// stdout open, so the connection lives on (a launcher's server could
	// answer) until the stop, which ends the read while the request just
	// written has the reader trying.
	p, tr := trying(t, Spec{Command: "sh", Args: []string{"-c", `(exec sleep 1000 2>/dev/null) & read l; exit 3`}})
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	go func() {
		_, _ = tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "ping"})
	}()
	waitClosed(t, "the server to exit", p.Exited())
	select {
	case <-tr.Done():
		t.Fatalf("the transport ended when its server exited, while the sleep it started holds stdout: %v", tr.Err())
	default:
	}
	go p.Stop()
	waitClosed(t, "the transport to end after the stop", tr.Done())
}
