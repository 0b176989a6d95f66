package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// fakeServer is the far end of a Transport over io.Pipe: the test writes the
// "server's stdout" and reads what the transport wrote to its "stdin".
type fakeServer struct {
	tr       *Transport
	ev       *Evidence
	stdout   *io.PipeWriter // the server's stdout, read by the transport
	requests *bufio.Reader  // the server's stdin, written by the transport
	stdinR   *io.PipeReader
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	outR, outW := io.Pipe()
	inR, inW := io.Pipe()
	ev := &Evidence{}
	fs := &fakeServer{tr: NewTransport(outR, inW, ev), ev: ev, stdout: outW, requests: bufio.NewReader(inR), stdinR: inR}
	ctx, cancel := context.WithCancel(context.Background())
	if err := fs.tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = outW.Close()  // the read loop sees EOF
		_ = inR.Close()   // a write still pending fails instead of blocking
		_ = fs.tr.Close() // closes the write end of stdin
		done := make(chan struct{})
		go func() { fs.tr.Wait(); close(done) }()
		waitClosed(t, "the transport's read loop to end", done)
	})
	return fs
}

// say writes lines to the transport as the server's stdout.
func (fs *fakeServer) say(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(fs.stdout, l+"\n"); err != nil {
			t.Fatalf("write %q: %v", l, err)
		}
	}
}

// sync sends a request and answers it, so that every line written before
// has been dispatched when it returns (the read loop handles lines in order).
func (fs *fakeServer) sync(t *testing.T) {
	t.Helper()
	resp, err := fs.roundTrip(t, mcp.NewRequestId("sync"), `{"synced":true}`)
	if err != nil || string(resp.Result) != `{"synced":true}` {
		t.Fatalf("sync round trip: %+v, %v", resp, err)
	}
}

// roundTrip issues a request through the transport, reads it on the server
// side and answers it with result.
func (fs *fakeServer) roundTrip(t *testing.T, id mcp.RequestId, result string) (*transport.JSONRPCResponse, error) {
	t.Helper()
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		resp, err := fs.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: id, Method: "ping"})
		got <- answer{resp, err}
	}()
	line, err := fs.requests.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the request: %v", err)
	}
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(line), &req); err != nil || req.JSONRPC != "2.0" || req.Method != "ping" {
		t.Fatalf("the transport wrote %q (%v)", line, err)
	}
	fs.say(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	select {
	case a := <-got:
		return a.resp, a.err
	case <-time.After(patience):
		t.Fatal("SendRequest did not return after its response")
		return nil, nil
	}
}

func TestTransportRecordsNoiseWithLineNumber(t *testing.T) {
	fs := newFakeServer(t)
	fs.say(t,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
		"debug: hello",
		"",
		"Server listening on port 3000",
	)
	fs.sync(t)
	snap := fs.ev.Snapshot()
	if snap.NoiseTotal != 2 || len(snap.Noise) != 2 {
		t.Fatalf("noise = %+v, want 2 lines", snap.Noise)
	}
	if n := snap.Noise[0]; n.Line != 2 || n.Text != "debug: hello" || n.Time.IsZero() {
		t.Errorf("first noise = %+v, want line 2 %q", n, "debug: hello")
	}
	if n := snap.Noise[1]; n.Line != 4 || n.Text != "Server listening on port 3000" {
		t.Errorf("second noise = %+v, want line 4", n)
	}
	if snap.ErrorsTotal != 0 {
		t.Errorf("transport errors = %+v, want none", snap.Errors)
	}
	if noise, errs := fs.ev.Counts(); noise != 2 || errs != 0 {
		t.Errorf("Counts() = %d, %d", noise, errs)
	}
}

func TestTransportJSONThatIsNotJSONRPCIsATransportError(t *testing.T) {
	fs := newFakeServer(t)
	fs.say(t,
		`{"foo":1}`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":"never-sent","result":{}}`,
		`{"jsonrpc":"2.0","id":7}`,
	)
	fs.sync(t)
	snap := fs.ev.Snapshot()
	if snap.NoiseTotal != 0 {
		t.Errorf("noise = %+v, want none: JSON is not noise", snap.Noise)
	}
	if snap.ErrorsTotal != 5 {
		t.Fatalf("transport errors = %d %+v, want 5", snap.ErrorsTotal, snap.Errors)
	}
	for i, want := range []struct {
		line int
		text string
	}{
		{1, `without "jsonrpc": "2.0": {"foo":1}`},
		{2, "not a JSON-RPC message object: [1,2,3]"},
		{3, "neither a method nor an id"},
		{4, "a response to a request run-mcp never sent"},
		{5, "neither a result nor an error"},
	} {
		e := snap.Errors[i]
		if e.Line != want.line || !strings.Contains(e.Message, want.text) {
			t.Errorf("error %d = line %d %q, want line %d containing %q", i, e.Line, e.Message, want.line, want.text)
		}
	}
}

func TestTransportRoutesResponseToSendRequest(t *testing.T) {
	fs := newFakeServer(t)
	resp, err := fs.roundTrip(t, mcp.NewRequestId(int64(1)), `{"tools":[{"name":"echo"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ID.String() != mcp.NewRequestId(int64(1)).String() || string(resp.Result) != `{"tools":[{"name":"echo"}]}` {
		t.Errorf("response = id %v result %s", resp.ID, resp.Result)
	}
	resp, err = fs.roundTrip(t, mcp.NewRequestId("run-mcp-2"), `{}`)
	if err != nil || resp.ID.String() != mcp.NewRequestId("run-mcp-2").String() {
		t.Errorf("string id: %+v, %v", resp, err)
	}
	if snap := fs.ev.Snapshot(); snap.NoiseTotal+snap.ErrorsTotal != 0 {
		t.Errorf("evidence after clean exchanges: %+v", snap)
	}
}

func TestTransportErrorResponse(t *testing.T) {
	fs := newFakeServer(t)
	got := make(chan *transport.JSONRPCResponse, 1)
	go func() {
		resp, _ := fs.tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(9)), Method: "tools/call"})
		got <- resp
	}()
	if _, err := fs.requests.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	fs.say(t, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Unknown tool"}}`)
	select {
	case resp := <-got:
		if resp == nil || resp.Error == nil || resp.Error.Code != -32602 || resp.Error.Message != "Unknown tool" {
			t.Errorf("response = %+v", resp)
		}
	case <-time.After(patience):
		t.Fatal("no response")
	}
}

func TestTransportNotificationsAndServerRequests(t *testing.T) {
	fs := newFakeServer(t)
	var mu sync.Mutex
	var methods []string
	fs.tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		methods = append(methods, n.Method)
		mu.Unlock()
	})
	fs.say(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	// A request from the server with no handler set is refused, not dropped.
	fs.say(t, `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
	line, err := fs.requests.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		ID    string `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &reply); err != nil || reply.ID != "srv-1" || reply.Error.Code != mcp.METHOD_NOT_FOUND {
		t.Errorf("reply to an unhandled server request = %q (%v)", line, err)
	}
	fs.sync(t)
	mu.Lock()
	defer mu.Unlock()
	if len(methods) != 1 || methods[0] != "notifications/tools/list_changed" {
		t.Errorf("notifications = %q", methods)
	}
}

// TestTransportClosesOverMaxMessage sends one message just over the 64 MB cap
// through a pipe: the channel closes with the exact size, a pending request
// fails with it, and later requests fail at once.
func TestTransportClosesOverMaxMessage(t *testing.T) {
	fs := newFakeServer(t)
	pending := make(chan error, 1)
	go func() {
		_, err := fs.tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/call"})
		pending <- err
	}()
	if _, err := fs.requests.ReadString('\n'); err != nil {
		t.Fatal(err)
	}

	const size = MaxMessage + 11
	prefix := `{"jsonrpc":"2.0","id":1,"result":{"t":"`
	suffix := `"}}`
	chunk := []byte(strings.Repeat("x", 1<<20))
	w := bufio.NewWriterSize(fs.stdout, 1<<20)
	_, _ = w.WriteString(prefix)
	for left := size - len(prefix) - len(suffix); left > 0; {
		n := min(left, len(chunk))
		if _, err := w.Write(chunk[:n]); err != nil {
			t.Fatal(err)
		}
		left -= n
	}
	_, _ = w.WriteString(suffix + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}

	waitClosed(t, "the transport to close", fs.tr.Done())
	var tl *TooLargeError
	if err := fs.tr.Err(); !errors.As(err, &tl) || tl.Size != size {
		t.Fatalf("Err() = %v, want TooLargeError of %d bytes", err, size)
	}
	select {
	case err := <-pending:
		var closed *ClosedError
		if !errors.As(err, &closed) || !errors.Is(err, transport.ErrTransportClosed) {
			t.Fatalf("pending request failed with %v (%T), want a ClosedError", err, err)
		}
		for _, want := range []string{"Connection closed: ", "67,108,875 bytes, over the 64 MB cap"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("pending request error %q lacks %q", err, want)
			}
		}
	case <-time.After(patience):
		t.Fatal("the pending request did not fail when the channel closed")
	}
	_, err := fs.tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(2)), Method: "ping"})
	if !errors.As(err, new(*ClosedError)) {
		t.Errorf("a request after close: %v, want ClosedError", err)
	}
	if err := fs.tr.SendNotification(context.Background(), mcp.JSONRPCNotification{JSONRPC: "2.0"}); !errors.As(err, new(*ClosedError)) {
		t.Errorf("a notification after close: %v, want ClosedError", err)
	}
	snap := fs.ev.Snapshot()
	if snap.ErrorsTotal != 1 || !strings.Contains(snap.Errors[0].Message, "over the 64 MB cap") || snap.Errors[0].Line != 1 {
		t.Errorf("transport errors = %+v, want the oversized message on line 1", snap.Errors)
	}
}

func TestTransportEOFClosesPending(t *testing.T) {
	fs := newFakeServer(t)
	pending := make(chan error, 1)
	go func() {
		_, err := fs.tr.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "initialize"})
		pending <- err
	}()
	if _, err := fs.requests.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	_ = fs.stdout.Close() // the server died
	select {
	case err := <-pending:
		if err == nil || err.Error() != "Connection closed" {
			t.Errorf("pending request error = %v, want exactly \"Connection closed\"", err)
		}
	case <-time.After(patience):
		t.Fatal("pending request did not fail at EOF")
	}
}

func TestTransportCancelledRequestLateAnswerIsNotAnError(t *testing.T) {
	fs := newFakeServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := fs.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(5)), Method: "tools/call"})
		done <- err
	}()
	if _, err := fs.requests.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled request: %v", err)
		}
	case <-time.After(patience):
		t.Fatal("cancel did not release SendRequest")
	}
	fs.say(t, `{"jsonrpc":"2.0","id":5,"result":{}}`)
	fs.sync(t)
	if snap := fs.ev.Snapshot(); snap.ErrorsTotal != 0 {
		t.Errorf("late answer to a cancelled request reported: %+v", snap.Errors)
	}
}
