package wire

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
)

// inboundRequest is a request from the target being handled. Its context
// ends when the target withdraws it (notifications/cancelled), so a person
// is not left answering a form nobody waits for, and when the transport's
// own context does.
type inboundRequest struct {
	key       string
	ctx       context.Context
	cancel    context.CancelCauseFunc
	cancelled atomic.Bool
}

// ErrWithdrawn is the cause of an inbound request's context when the server
// cancelled the request itself.
var ErrWithdrawn = errors.New("the server withdrew its request")

// withdrawn says the target cancelled the request: it expects no response.
func (in *inboundRequest) withdrawn() bool { return in.cancelled.Load() }

func (t *Transport) trackInbound(parent context.Context, id mcp.RequestId) *inboundRequest {
	ctx, cancel := context.WithCancelCause(parent)
	in := &inboundRequest{key: id.String(), ctx: ctx, cancel: cancel}
	t.inboundMu.Lock()
	if t.inbound == nil {
		t.inbound = map[string]*inboundRequest{}
	}
	t.inbound[in.key] = in
	t.inboundMu.Unlock()
	return in
}

func (t *Transport) untrackInbound(in *inboundRequest) {
	t.inboundMu.Lock()
	if t.inbound[in.key] == in {
		delete(t.inbound, in.key)
	}
	t.inboundMu.Unlock()
	in.cancel(nil)
}

// withdrawInbound ends the handler of the request a notifications/cancelled
// from the target names, if one is still running.
func (t *Transport) withdrawInbound(params []byte) {
	raw, ok := jsonscan.Lookup(params, "requestId")
	if !ok {
		return
	}
	var id mcp.RequestId
	if id.UnmarshalJSON(raw) != nil || id.IsNil() {
		return
	}
	t.inboundMu.Lock()
	in := t.inbound[id.String()]
	t.inboundMu.Unlock()
	if in == nil {
		return
	}
	in.cancelled.Store(true)
	reason := ErrWithdrawn
	if r, ok := jsonscan.Lookup(params, "reason"); ok {
		if s, ok := jsonscan.Unquote(r); ok && s != "" {
			reason = fmt.Errorf("%w: %s", ErrWithdrawn, s)
		}
	}
	in.cancel(reason)
}
