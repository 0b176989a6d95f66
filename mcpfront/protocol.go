package mcpfront

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// request is one request of the host, from the moment it is read until it
// is answered (or cancelled: then it is never answered, as MCP asks).
type request struct {
	id     json.RawMessage // as the host sent it
	key    string
	method string
	params json.RawMessage
	// modern: the request came with 2026-07-28's _meta; caps is what the
	// host declared (on the request, or at initialize).
	modern   bool
	caps     mcp.ClientCapabilities
	logLevel mcp.LoggingLevel
	token    json.RawMessage // the progress token the host offered, as sent

	mu        sync.Mutex
	cancel    context.CancelFunc // a handler's, when one runs it
	prim      *primitive         // a call_mcp_primitive it carries
	cancelled bool
	answered  bool
}

// track files r as in flight, so a notifications/cancelled finds it.
func (f *front) track(r *request) {
	f.mu.Lock()
	f.inflight[r.key] = r
	f.mu.Unlock()
	if r.modern {
		f.host.ride(r.key, r.logLevel)
	}
}

// done takes r out of the table; false when it was cancelled (nothing may
// be sent for it) or already answered.
func (f *front) done(r *request) bool {
	r.mu.Lock()
	ok := !r.cancelled && !r.answered
	r.answered = true
	r.mu.Unlock()
	f.mu.Lock()
	if f.inflight[r.key] == r {
		delete(f.inflight, r.key)
	}
	f.mu.Unlock()
	if r.modern {
		f.host.unride(r.key)
	}
	return ok
}

// reply answers r with an encoded result. A 2026-07-28 host gets the
// resultType its era requires on every result.
func (f *front) reply(r *request, result json.RawMessage) {
	if !f.done(r) {
		return
	}
	if r.modern {
		result = withResultType(result, string(mcp.ResultTypeComplete))
	}
	if err := f.out.result(r.id, result); err != nil {
		f.logf("write to the host: %v", err)
	}
}

// replyJSON answers r with v encoded.
func (f *front) replyJSON(r *request, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.replyError(r, mcp.INTERNAL_ERROR, "run-mcp could not encode its answer: "+err.Error())
		return
	}
	f.reply(r, b)
}

// replyError answers r with a JSON-RPC error.
func (f *front) replyError(r *request, code int, message string) {
	if !f.done(r) {
		return
	}
	_ = f.out.rpcError(r.id, code, message)
}

// cancel handles the host's notifications/cancelled for its request key:
// the request is never answered, its handler's context ends, and a call it
// carries is cancelled at its server (with any question it asked the host).
func (f *front) cancel(key string) {
	f.mu.Lock()
	r := f.inflight[key]
	delete(f.inflight, key)
	f.mu.Unlock()
	if r == nil {
		return
	}
	r.mu.Lock()
	r.cancelled = true
	cancel, prim := r.cancel, r.prim
	r.mu.Unlock()
	if r.modern {
		f.host.unride(r.key)
	}
	if cancel != nil {
		cancel()
	}
	if prim != nil {
		prim.cancelled(f)
	}
}

// cancelAll cancels every request in flight once the host is gone.
func (f *front) cancelAll() {
	f.mu.Lock()
	keys := make([]string, 0, len(f.inflight))
	for k := range f.inflight {
		keys = append(keys, k)
	}
	f.mu.Unlock()
	for _, k := range keys {
		f.cancel(k)
	}
}

// supportedVersions are the revisions the agent server speaks, newest first.
var supportedVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// serverCaps is what the agent server offers: tools and logging.
func serverCaps() map[string]any {
	return map[string]any{"tools": map[string]any{}, "logging": map[string]any{}}
}

// initialize is a 2025-era host's handshake: it answers with the host's
// revision when run-mcp speaks it, else its own newest of that era.
func (f *front) initialize(r *request) {
	var p struct {
		ProtocolVersion string                 `json:"protocolVersion"`
		Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	}
	_ = json.Unmarshal(r.params, &p)
	version := mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if slices.Contains(supportedVersions, p.ProtocolVersion) && !mcp.IsModernProtocol(p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	f.host.initialize(p.Capabilities)
	f.replyJSON(r, map[string]any{"protocolVersion": version, "capabilities": serverCaps(),
		"serverInfo": f.info(), "instructions": instructions})
}

// discover answers a 2026-07-28 host's server/discover.
func (f *front) discover(r *request) {
	f.host.sawModern()
	f.replyJSON(r, map[string]any{"supportedVersions": supportedVersions, "capabilities": serverCaps(),
		"instructions": instructions, "_meta": map[string]any{mcp.MetaKeyServerInfo: f.info()}})
}

func (f *front) info() mcp.Implementation {
	return mcp.Implementation{Name: "run-mcp", Version: f.opts.Version}
}

// setLevel is logging/setLevel: the relays send what is at least as severe.
func (f *front) setLevel(r *request) {
	var p struct {
		Level mcp.LoggingLevel `json:"level"`
	}
	if json.Unmarshal(r.params, &p) != nil || !slices.Contains(levels, string(p.Level)) {
		f.replyError(r, mcp.INVALID_PARAMS, "logging/setLevel needs level, one of debug, info, notice, warning, error, critical, alert, emergency")
		return
	}
	f.host.setLevel(p.Level)
	f.reply(r, json.RawMessage(`{}`))
}

var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
