package mcpfront

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/run-mcp/run-mcp/actors"
)

// hostBridge is the engine's view of the agent's MCP client: what it
// declared, and the relays of a target's requests to it.
type hostBridge struct {
	srv *server.MCPServer
	out *lockedWriter

	mu      sync.Mutex
	session server.ClientSession
	caps    mcp.ClientCapabilities
	inited  bool
	// modern says the host speaks 2026-07-28: it declares its capabilities
	// on every request, and is asked for input through input_required.
	modern bool
	parks  parks

	// Forwarding budget: a chatty target must not flood the agent's
	// context, so at most relayLines notifications per connection go out
	// per relay window; the rest are counted and summarised with a pointer.
	fwdMu   sync.Mutex
	window  time.Time
	sent    map[string]int
	dropped map[string]int
}

var _ actors.Host = (*hostBridge)(nil)

func (h *hostBridge) setSession(s server.ClientSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.session == nil {
		h.session = s
	}
}

func (h *hostBridge) setCaps(c mcp.ClientCapabilities) {
	h.mu.Lock()
	h.caps, h.inited = c, true
	h.mu.Unlock()
}

// markModern records that the host sent a 2026-07-28 request.
func (h *hostBridge) markModern() {
	h.mu.Lock()
	h.modern = true
	h.mu.Unlock()
}

func (h *hostBridge) isModern() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modern
}

// Caps says what the host declared: at initialize, or for a 2026-07-28 host
// on its latest request (mcp-go records each request's _meta capabilities
// on the session). A call's own relays use the capabilities of that call.
func (h *hostBridge) Caps() actors.HostCaps {
	h.mu.Lock()
	caps, modern, s := h.caps, h.modern, h.session
	h.mu.Unlock()
	if ws, ok := s.(server.SessionWithClientInfo); ok && modern {
		caps = ws.GetClientCapabilities()
	}
	return capsOf(caps)
}

func capsOf(cc mcp.ClientCapabilities) actors.HostCaps {
	c := actors.HostCaps{Sampling: cc.Sampling != nil}
	if e := cc.Elicitation; e != nil {
		// A bare elicitation capability means forms (the 2025-06-18 shape).
		c.ElicitForm = e.Form != nil || e.URL == nil
		c.ElicitURL = e.URL != nil
	}
	return c
}

func (h *hostBridge) hostCtx(ctx context.Context) (context.Context, error) {
	h.mu.Lock()
	s := h.session
	h.mu.Unlock()
	if s == nil {
		return nil, errors.New("the host has not initialized yet")
	}
	return h.srv.WithContext(ctx, s), nil
}

// Elicit relays a form or URL request to the host when it declared that
// mode, and declines deterministically when it did not. A 2026-07-28 host
// gets it as the input_required of the call it belongs to; with no call of
// its to carry the question, it is declined.
func (h *hostBridge) Elicit(ctx context.Context, conn string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if pc := h.parks.find(ctx, conn); pc != nil {
		return pc.elicit(ctx, req)
	}
	if h.isModern() {
		return actors.Headless{}.Elicit(ctx, "", req)
	}
	caps := h.Caps()
	wantURL := req.Params.Mode == mcp.ElicitationModeURL
	if (wantURL && !caps.ElicitURL) || (!wantURL && !caps.ElicitForm) {
		return actors.Headless{}.Elicit(ctx, "", req)
	}
	hctx, err := h.hostCtx(ctx)
	if err != nil {
		return nil, err
	}
	return h.srv.RequestElicitation(hctx, req)
}

// Sample relays a sampling request when the host declared sampling, to a
// 2026-07-28 host as the input_required of the call it belongs to.
func (h *hostBridge) Sample(ctx context.Context, conn string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if pc := h.parks.find(ctx, conn); pc != nil {
		return pc.sample(ctx, req)
	}
	if h.isModern() {
		return nil, errors.New("the host speaks 2026-07-28, which cannot be sent requests, and no call of it was waiting to carry the question")
	}
	if !h.Caps().Sampling {
		return nil, errors.New("the host run-mcp runs under did not declare sampling, so there is no model to ask")
	}
	hctx, err := h.hostCtx(ctx)
	if err != nil {
		return nil, err
	}
	return h.srv.RequestSampling(hctx, req)
}

// Notify forwards a target's notification to the host as a logging message
// tagged with the connection. Progress is attributed to calls instead.
func (h *hostBridge) Notify(conn string, n mcp.JSONRPCNotification) {
	if n.Method == string(mcp.MethodNotificationProgress) || !h.budget(conn) {
		return
	}
	meta := map[string]any{"run-mcp/connection": conn}
	params := map[string]any{"level": "info", "logger": "run-mcp/" + conn, "_meta": meta}
	if n.Method == string(mcp.MethodNotificationMessage) {
		f := n.Params.AdditionalFields
		if lvl, ok := f["level"].(string); ok {
			params["level"] = lvl
		}
		if lg, ok := f["logger"].(string); ok && lg != "" {
			params["logger"] = "run-mcp/" + conn + "/" + lg
		}
		params["data"] = f["data"]
	} else {
		params["data"] = map[string]any{"method": n.Method, "params": n.Params.AdditionalFields}
	}
	_ = h.out.notify(string(mcp.MethodNotificationMessage), params)
}

// ready says the host has initialized, so notifications may be sent.
func (h *hostBridge) ready() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session != nil && h.inited
}

// budget spends one forward of conn's budget in the current window.
func (h *hostBridge) budget(conn string) bool {
	h.fwdMu.Lock()
	defer h.fwdMu.Unlock()
	now := time.Now()
	if now.Sub(h.window) >= relayEvery {
		h.window, h.sent = now, map[string]int{}
	}
	if h.sent[conn] >= relayLines {
		if h.dropped == nil {
			h.dropped = map[string]int{}
		}
		h.dropped[conn]++
		return false
	}
	h.sent[conn]++
	return true
}

// flushDropped tells the host how many notifications were held back since
// the last flush, and where to read them.
func (h *hostBridge) flushDropped() {
	h.fwdMu.Lock()
	dropped := h.dropped
	h.dropped = nil
	h.fwdMu.Unlock()
	for conn, n := range dropped {
		_ = h.out.notify(string(mcp.MethodNotificationMessage), map[string]any{"level": "info", "logger": "run-mcp/" + conn,
			"data":  fmt.Sprintf("[... %d more notification(s) from %s not forwarded, to spare your context: get_server_notifications connection=%s shows them all ...]", n, conn, conn),
			"_meta": map[string]any{"run-mcp/connection": conn}})
	}
}
