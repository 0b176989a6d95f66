package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// mcp-go's Streamable HTTP client gives each request from the server (an
// elicitation, a sampling request, roots/list) a context that ends 30 s
// after it arrived, and posts the answer under that same context. A person
// who takes longer than that to fill in a form is normal (client-input time
// is not server time, as the call clocks say), but the answer then fails to
// post, the server never hears back, and the call hangs. Two pieces undo
// that deadline:
//   - detachedHandler hands run-mcp's handler a context that ends with the
//     session instead, so the question waits for the person;
//   - answerPoster posts a JSON-RPC answer (a POST whose body has no method)
//     under a fresh budget of its own, whatever deadline its request carried.

// answerPostBudget bounds posting one answer to the server.
const answerPostBudget = 30 * time.Second

// detachedHandler wraps h so its context ends when session ends, not at
// the transport's per-request deadline.
func detachedHandler(session context.Context, h transport.RequestHandler) transport.RequestHandler {
	return func(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		stop := context.AfterFunc(session, cancel)
		defer stop()
		return h(dctx, req)
	}
}

// answerPoster is the HTTP client's round tripper: answers to the server's
// requests are posted apart from their request's (spent) context.
type answerPoster struct{ next http.RoundTripper }

func (p answerPoster) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.GetBody == nil || req.Context().Err() == nil || !isAnswer(req) {
		return p.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), answerPostBudget)
	resp, err := p.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// isAnswer says the request's body is a JSON-RPC response: an id and no
// method.
func isAnswer(req *http.Request) bool {
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil || !bytes.Contains(b, []byte(`"id"`)) {
		return false
	}
	var msg struct {
		Method *string          `json:"method"`
		ID     *json.RawMessage `json:"id"`
	}
	return json.Unmarshal(b, &msg) == nil && msg.Method == nil && msg.ID != nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
