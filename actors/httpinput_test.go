package actors

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// The handler of a server's request over HTTP waits for the person, past
// the per-request deadline mcp-go's transport puts on its context (30 s
// there, 50 ms here), and stops when the session ends.
func TestDetachedHandlerOutlivesTheRequestDeadline(t *testing.T) {
	session, endSession := context.WithCancel(context.Background())
	defer endSession()
	reqCtx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	outlived := make(chan bool, 1)
	h := detachedHandler(session, func(ctx context.Context, _ transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		<-reqCtx.Done() // the transport's deadline has passed
		outlived <- ctx.Err() == nil
		endSession()
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("the handler's context did not end with the session")
		}
		return nil, ctx.Err()
	})
	_, _ = h(reqCtx, transport.JSONRPCRequest{Method: "elicitation/create"})
	if !<-outlived {
		t.Fatal("the handler's context ended at the transport's per-request deadline, before the person could answer")
	}
}

// An answer to a server's request is posted even though its request's
// context has ended (mcp-go posts it under that context); anything else is
// not.
func TestAnswerPosterPostsAnswersPastTheirDeadline(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	client := &http.Client{Transport: answerPoster{next: http.DefaultTransport}}
	spent, cancel := context.WithCancel(context.Background())
	cancel()
	post := func(body string) error {
		req, err := http.NewRequestWithContext(spent, http.MethodPost, srv.URL, bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	answer := `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"name":"Ada"}}}`
	if err := post(answer); err != nil {
		t.Fatalf("the answer was not posted: %v", err)
	}
	if b := <-got; b != answer {
		t.Fatalf("the server got %q, want the answer", b)
	}
	if err := post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`); err == nil {
		t.Fatal("a request (not an answer) was posted under a context that had ended")
	}
}
