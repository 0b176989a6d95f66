package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// osPipeServer is the far end of a Transport over real pipes, so SendAsync
// meets a pipe that fills as a target's stdin does.
type osPipeServer struct {
	tr     *Transport
	stdinR *os.File // what the transport writes: the test reads it, or not
	stdout *os.File // what the test writes as the server's stdout
}

func newOSPipeServer(t *testing.T) *osPipeServer {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &osPipeServer{tr: NewTransport(outR, inW, &Evidence{}), stdinR: inR, stdout: outW}
	if err := s.tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = outW.Close()
		_ = inR.Close()
		_ = s.tr.Close()
		done := make(chan struct{})
		go func() { s.tr.Wait(); close(done) }()
		waitClosed(t, "the transport's read loop to end", done)
		_ = outR.Close()
	})
	return s
}

type answerOf struct {
	key string
	err error
	res string
}

func request(id string, pad int) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"pad":%q}}`, id, strings.Repeat("x", pad)))
}

// SendAsync never waits for a target that is not reading: frames the pipe
// cannot take queue up, and once the target reads again they arrive whole
// and in the order they were sent, and each response reaches its function.
func TestSendAsyncQueuesBehindAFullPipe(t *testing.T) {
	s := newOSPipeServer(t)
	const n = 40
	answers := make(chan answerOf, n)
	sent := make(chan error, 1)
	go func() { // 40 × 64 KiB: many times what a pipe holds
		for i := range n {
			id := fmt.Sprintf("r%d", i)
			key := mcp.NewRequestId(id).String()
			if err := s.tr.SendAsync(key, request(id, 64<<10), func(resp *transport.JSONRPCResponse, err error) {
				a := answerOf{key: key, err: err}
				if resp != nil {
					a.res = string(resp.Result)
				}
				answers <- a
			}); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("SendAsync waited for a target that does not read its stdin")
	}
	// The target reads again: every frame, whole and in order.
	br := bufio.NewReaderSize(s.stdinR, 1<<20)
	for i := range n {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		var req struct {
			ID     string `json:"id"`
			Params struct {
				Pad string `json:"pad"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("frame %d is not whole JSON: %v", i, err)
		}
		if want := fmt.Sprintf("r%d", i); req.ID != want || len(req.Params.Pad) != 64<<10 {
			t.Fatalf("frame %d: id %q with %d bytes of padding, want %q with %d", i, req.ID, len(req.Params.Pad), want, 64<<10)
		}
		fmt.Fprintf(s.stdout, `{"jsonrpc":"2.0","id":%q,"result":{"n":%d}}`+"\n", req.ID, i)
	}
	for range n {
		a := <-answers
		if a.err != nil {
			t.Fatalf("%s: %v", a.key, a.err)
		}
		var i int
		fmt.Sscanf(a.key, "string:r%d", &i)
		if want := fmt.Sprintf(`{"n":%d}`, i); a.res != want {
			t.Errorf("%s answered %s, want %s", a.key, a.res, want)
		}
	}
}

// A frame that can no longer be sent (the target closed its stdin while it
// was queued) is reported to its function, not lost.
func TestSendAsyncReportsAFrameThatCannotBeSent(t *testing.T) {
	s := newOSPipeServer(t)
	const n = 8
	answers := make(chan error, n)
	for i := range n {
		id := fmt.Sprintf("q%d", i)
		if err := s.tr.SendAsync(mcp.NewRequestId(id).String(), request(id, 64<<10), func(_ *transport.JSONRPCResponse, err error) {
			answers <- err
		}); err != nil {
			answers <- err // refused at once: reported just the same
		}
	}
	_ = s.stdinR.Close() // the target goes away without reading
	_ = s.stdout.Close()
	for range n {
		select {
		case err := <-answers:
			if err == nil {
				t.Fatal("a request the target never read was answered without an error")
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a queued request was never told it could not be sent")
		}
	}
}

// A Batch holds requests until Flush, then sends each transport's in the
// order they were given.
func TestBatchHoldsUntilFlush(t *testing.T) {
	s := newOSPipeServer(t)
	var b Batch
	for i := range 3 {
		id := fmt.Sprintf("b%d", i)
		if err := s.tr.SendBatched(&b, mcp.NewRequestId(id).String(), request(id, 10), func(*transport.JSONRPCResponse, error) {}); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.stdinR.SetReadDeadline(time.Now()) // only what is already there
	if n, _ := s.stdinR.Read(make([]byte, 1)); n != 0 {
		t.Fatal("a batched request was written before Flush")
	}
	_ = s.stdinR.SetReadDeadline(time.Time{})
	b.Flush()
	br := bufio.NewReader(s.stdinR)
	for i := range 3 {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var req struct{ ID string }
		if err := json.Unmarshal(line, &req); err != nil || req.ID != fmt.Sprintf("b%d", i) {
			t.Fatalf("line %d: %s (%v), want id b%d", i, line, err, i)
		}
	}
}

// A write made with a deadline (here a notification sent under a context
// that ends soon, as a short call's cancellation is) leaves no deadline on
// the pipe: once it has passed, the next request still goes out and is
// answered. Before the fix every later write failed with "i/o timeout", so
// a session or agent connection broke for good 30 s after its handshake.
func TestAPassedWriteDeadlineDoesNotBreakLaterWrites(t *testing.T) {
	s := newOSPipeServer(t)
	lines := bufio.NewReader(s.stdinR)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/cancelled"}}); err != nil {
		t.Fatalf("the notification was not written: %v", err)
	}
	if _, err := lines.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	time.Sleep(20 * time.Millisecond) // past the deadline, whatever the clock's grain

	answered := make(chan answerOf, 1)
	key := mcp.NewRequestId("late").String()
	if err := s.tr.SendAsync(key, request("late", 10), func(resp *transport.JSONRPCResponse, err error) {
		a := answerOf{key: key, err: err}
		if resp != nil {
			a.res = string(resp.Result)
		}
		answered <- a
	}); err != nil {
		t.Fatalf("a request after the deadline passed was refused: %v", err)
	}
	line, err := lines.ReadString('\n')
	if err != nil || !strings.Contains(line, `"late"`) {
		t.Fatalf("the request did not reach the server: %q, %v", line, err)
	}
	if _, err := s.stdout.WriteString(`{"jsonrpc":"2.0","id":"late","result":{"ok":true}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answered:
		if a.err != nil || a.res != `{"ok":true}` {
			t.Fatalf("answer: %+v", a)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the request was never answered")
	}
}
