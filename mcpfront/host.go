package mcpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// hostSession is what run-mcp knows of the one host it runs under (its era,
// what it declared, the log level it asked for) and the requests run-mcp
// sends it (a relayed form, a sampling request), matched to their answers by
// id.
//
// A 2025-era host opens with initialize and declares its capabilities and
// log level once. A 2026-07-28 host sends no handshake: each request carries
// its revision, capabilities and log level in _meta, and the host can be
// sent no request at all (a question goes back as the input_required result
// of the call it belongs to, park.go), and no notification outside a
// request: log messages ride the requests that asked for them.
type hostSession struct {
	out *lockedWriter

	mu          sync.Mutex
	initialized bool // a 2025-era host sent initialize
	modern      bool // the host spoke 2026-07-28
	caps        mcp.ClientCapabilities
	level       mcp.LoggingLevel // logging/setLevel ("": never set)
	// riders are the 2026-07-28 requests in flight that asked for log
	// messages, by key, with the level each asked for.
	riders  map[string]mcp.LoggingLevel
	seq     int
	pending map[string]chan json.RawMessage
	closed  bool
	gone    error

	// The forwarding budget: a chatty target must not flood the agent's
	// context, so at most relayLines notifications per connection go out
	// per relay window; the rest are counted and summarised with a pointer.
	fwdMu   sync.Mutex
	window  time.Time
	sent    map[string]int
	dropped map[string]int

	// changed is signalled (never waited on) when what the relays may send
	// changed: the host initialized, set its level or sent a request that
	// asked for log messages, or a notification was held back.
	changed chan struct{}
}

func newHostSession(out *lockedWriter) *hostSession {
	return &hostSession{out: out, riders: map[string]mcp.LoggingLevel{}, pending: map[string]chan json.RawMessage{},
		changed: make(chan struct{}, 1)}
}

// poke signals changed; a signal pending already stands for this one.
func (h *hostSession) poke() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// initialize records a 2025-era host's handshake.
func (h *hostSession) initialize(caps mcp.ClientCapabilities) {
	h.mu.Lock()
	h.initialized, h.caps = true, caps
	h.mu.Unlock()
	h.poke()
}

// sawModern records that the host speaks 2026-07-28.
func (h *hostSession) sawModern() {
	h.mu.Lock()
	h.modern = true
	h.mu.Unlock()
}

func (h *hostSession) isModern() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.modern
}

// setLevel is logging/setLevel: the relays send what is at least as severe.
func (h *hostSession) setLevel(l mcp.LoggingLevel) {
	h.mu.Lock()
	h.level = l
	h.mu.Unlock()
	h.poke()
}

// ride records a 2026-07-28 request in flight that asked for log messages
// at level (nothing when it asked for none); unride when it is answered.
func (h *hostSession) ride(key string, level mcp.LoggingLevel) {
	if level == "" {
		return
	}
	h.mu.Lock()
	h.riders[key] = level
	h.mu.Unlock()
	h.poke()
}

func (h *hostSession) unride(key string) {
	h.mu.Lock()
	delete(h.riders, key)
	h.mu.Unlock()
}

// allows says a log message at level may be sent now: to a 2025-era host
// once it initialized, at or above the level it set (everything until it
// sets one); to a 2026-07-28 host only while a request that asked for log
// messages at or below level is in flight.
func (h *hostSession) allows(level mcp.LoggingLevel) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.modern {
		for _, min := range h.riders {
			if level.ShouldSendTo(min) {
				return true
			}
		}
		return false
	}
	return h.initialized && (h.level == "" || level.ShouldSendTo(h.level))
}

// legacyCaps is what a 2025-era host declared at initialize.
func (h *hostSession) legacyCaps() mcp.ClientCapabilities {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.caps
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

// request sends one request to a 2025-era host and waits for its answer,
// or for ctx: then the host is told (notifications/cancelled) so a form it
// shows can close, and an answer that still comes is dropped.
func (h *hostSession) request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, h.gone
	}
	h.seq++
	id := "run-mcp-host-" + strconv.Itoa(h.seq)
	key := strconv.Quote(id)
	ch := make(chan json.RawMessage, 1)
	h.pending[key] = ch
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.pending, key)
		h.mu.Unlock()
	}()
	err := h.out.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      string          `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, id, method, params})
	if err != nil {
		return nil, fmt.Errorf("send %s to the host: %w", method, err)
	}
	select {
	case <-ctx.Done():
		reason := "run-mcp no longer needs the answer"
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			reason += ": " + cause.Error()
		}
		_ = h.out.notify(string(mcp.MethodNotificationCancelled), map[string]any{"requestId": id, "reason": reason})
		return nil, context.Cause(ctx)
	case msg, ok := <-ch:
		if !ok {
			return nil, h.gone
		}
		return decodeAnswer(method, msg)
	}
}

func decodeAnswer(method string, msg []byte) (json.RawMessage, error) {
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcErr         `json:"error"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil {
		return nil, fmt.Errorf("the host's answer to %s is not a JSON-RPC response: %s", method, wire.JSONWords(err))
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("the host answered %s with error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	if len(resp.Result) == 0 {
		return nil, fmt.Errorf("the host's answer to %s has no result", method)
	}
	return resp.Result, nil
}

// deliver hands the host's answer to the request waiting for it; false
// when no request of run-mcp's has that id.
func (h *hostSession) deliver(key string, msg []byte) bool {
	h.mu.Lock()
	ch := h.pending[key]
	delete(h.pending, key)
	h.mu.Unlock()
	if ch != nil {
		ch <- msg
	}
	return ch != nil
}

// waiting says a request of run-mcp's to the host has this id.
func (h *hostSession) waiting(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pending[key] != nil
}

// close releases every request still waiting when the host goes away.
func (h *hostSession) close(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed, h.gone = true, err
	for key, ch := range h.pending {
		close(ch)
		delete(h.pending, key)
	}
}

// budget spends one forward of conn's budget in the current window.
func (h *hostSession) budget(conn string) bool {
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
		h.poke() // the relay says how many, once per window
		return false
	}
	h.sent[conn]++
	return true
}

// flushDropped tells the host how many notifications were held back since
// the last flush, and where to read them.
func (h *hostSession) flushDropped() {
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
