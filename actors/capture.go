package actors

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// What the server sent must reach every printer as it was sent. mcp-go's
// client decodes results into its own types (dropping keys it does not
// know, adding defaults, float64 numbers), so requests that go through it
// carry a capture in their context, and the transport keeps a copy of every
// result it returns under that context: the pages of a listing, the rounds
// of a 2026-07-28 call (the last one is the answer).

type captureKey struct{}

// capture collects raw results, in the order they arrived.
type capture struct {
	mu      sync.Mutex
	results []json.RawMessage
}

func withCapture(ctx context.Context) (context.Context, *capture) {
	c := &capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func (c *capture) add(raw json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results = append(c.results, append(json.RawMessage(nil), raw...))
}

// all returns every result captured so far.
func (c *capture) all() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.results...)
}

// last returns the newest result, or nil.
func (c *capture) last() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.results) == 0 {
		return nil
	}
	return c.results[len(c.results)-1]
}

func record(ctx context.Context, resp *transport.JSONRPCResponse, err error) {
	if err != nil || resp == nil || resp.Error != nil {
		return
	}
	if c, ok := ctx.Value(captureKey{}).(*capture); ok {
		c.add(resp.Result)
	}
}

// guard refuses the initialize mcp-go falls back to when a modern handshake
// fails: the probe found the server modern, so the failure is reported.
func guard(ctx context.Context, req transport.JSONRPCRequest) error {
	if req.Method == string(mcp.MethodInitialize) && wire.InitializeForbidden(ctx) {
		return wire.ErrInitializeForbidden
	}
	return nil
}

// capturingStdio is our stdio transport with results captured. Embedding
// the pointer keeps every other method (and so every interface mcp-go
// looks for) as it was.
type capturingStdio struct{ *wire.Transport }

func (t capturingStdio) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if err := guard(ctx, req); err != nil {
		return nil, err
	}
	resp, err := t.Transport.SendRequest(ctx, req)
	record(ctx, resp, err)
	return resp, err
}

// capturingHTTP is mcp-go's Streamable HTTP transport with results captured.
type capturingHTTP struct{ *transport.StreamableHTTP }

func (t capturingHTTP) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if err := guard(ctx, req); err != nil {
		return nil, err
	}
	resp, err := t.StreamableHTTP.SendRequest(ctx, req)
	record(ctx, resp, err)
	return resp, err
}
