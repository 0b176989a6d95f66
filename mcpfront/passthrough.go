package mcpfront

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A result with nothing to intercept must reach the host exactly as the
// target sent it, byte for byte. mcp-go's server re-encodes every result
// from its own types (field order, defaults), so such a result leaves the
// handler as a placeholder carrying a token in _meta, and the stdout writer
// swaps the placeholder's result for the target's bytes as the frame goes out.

const passMarker = "run-mcp/passthrough"

// passTTL bounds how long an unclaimed result is kept (a call the host
// cancelled never has its frame written).
const passTTL = time.Minute

type passEntry struct {
	raw  json.RawMessage
	when time.Time
}

type passthrough struct {
	mu      sync.Mutex
	seq     int
	pending map[string]passEntry
	// swept is when the table was last swept of unclaimed results: a sweep
	// walks the table, so it runs at most every passTTL/2 (O(1) amortised
	// per call, where a sweep on every call made a burst quadratic).
	swept time.Time
}

// hold keeps raw and returns the placeholder result that stands for it.
func (p *passthrough) hold(raw json.RawMessage) *mcp.CallToolResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[string]passEntry{}
	}
	now := time.Now()
	if now.Sub(p.swept) > passTTL/2 {
		p.swept = now
		for k, e := range p.pending {
			if now.Sub(e.when) > passTTL {
				delete(p.pending, k)
			}
		}
	}
	p.seq++
	token := "p" + strconv.Itoa(p.seq)
	p.pending[token] = passEntry{raw: raw, when: now}
	res := &mcp.CallToolResult{Content: []mcp.Content{}}
	res.Meta = &mcp.Meta{AdditionalFields: map[string]any{passMarker: token}}
	return res
}

// take claims the target's bytes a placeholder result stands for; ok is
// false when res is no placeholder (or its bytes were already claimed).
func (p *passthrough) take(res *mcp.CallToolResult) (json.RawMessage, bool) {
	if res == nil || res.Meta == nil {
		return nil, false
	}
	token, _ := res.Meta.AdditionalFields[passMarker].(string)
	if token == "" {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.pending[token]
	delete(p.pending, token)
	return e.raw, ok
}

// swap rewrites a response frame whose result is a placeholder; any other
// frame is returned as it is. A placeholder answering a 2026-07-28 host
// carries resultType (mcp-go stamps it on every result of that era), and the
// target's bytes then get one too when they lack it: the host's era requires
// it, and nothing else of the target's result is touched.
func (p *passthrough) swap(frame []byte) []byte {
	p.mu.Lock()
	empty := len(p.pending) == 0
	p.mu.Unlock()
	if empty || !bytes.Contains(frame, []byte(passMarker)) {
		return frame
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			Meta       map[string]any `json:"_meta"`
			ResultType string         `json:"resultType"`
		} `json:"result"`
	}
	if json.Unmarshal(frame, &msg) != nil || msg.ID == nil {
		return frame
	}
	token, _ := msg.Result.Meta[passMarker].(string)
	p.mu.Lock()
	e, ok := p.pending[token]
	delete(p.pending, token)
	p.mu.Unlock()
	if !ok {
		return frame
	}
	raw := e.raw
	if msg.Result.ResultType != "" {
		raw = withResultType(raw, msg.Result.ResultType)
	}
	out := make([]byte, 0, len(raw)+len(msg.ID)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, msg.ID...)
	out = append(out, `,"result":`...)
	out = append(out, raw...)
	return append(out, "}\n"...)
}

// withResultType inserts "resultType" as the first member of the result
// object when it has none, without re-encoding anything else.
func withResultType(raw json.RawMessage, resultType string) json.RawMessage {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return raw
	}
	if _, ok := members["resultType"]; ok {
		return raw
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return raw
	}
	value, _ := json.Marshal(resultType)
	out := make([]byte, 0, len(raw)+len(value)+16)
	out = append(out, `{"resultType":`...)
	out = append(out, value...)
	if len(members) > 0 {
		out = append(out, ',')
	}
	return append(out, trimmed[1:]...)
}
