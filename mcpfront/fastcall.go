package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The agent's hot path is call_mcp_primitive. Through mcp-go's HandleMessage
// each call is decoded five or six times, its result re-encoded and then
// decoded again to swap in the target's bytes. A plain call of a host of an
// earlier era than 2026-07-28 (no protocol _meta, no requestState or
// inputResponses, no task) needs none of mcp-go's dispatch: it is decoded
// once here, its handler (the same wrap: argument checking, progress,
// cancellation, panics) is called directly, and the answer is written with
// the host's id and the target's bytes as they came. Everything else still
// goes through HandleMessage.

// hostFrame is one message from the host, decoded once: the envelope that
// routes it, and what a tools/call of call_mcp_primitive needs.
type hostFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name           string                     `json:"name"`
		Arguments      json.RawMessage            `json:"arguments"`
		Meta           map[string]json.RawMessage `json:"_meta"`
		Task           json.RawMessage            `json:"task"`
		RequestState   json.RawMessage            `json:"requestState"`
		InputResponses json.RawMessage            `json:"inputResponses"`
	} `json:"params"`
}

// fastTool is the one tool served on the fast path.
const fastTool = "call_mcp_primitive"

// fastCall reads what the handler of call_mcp_primitive needs; ok is false
// when the call needs mcp-go's dispatch (a 2026-07-28 request, a retry
// with answers, a task-augmented call, arguments that are not an object).
func (fr *hostFrame) fastCall() (hostCall, bool) {
	p := &fr.Params
	if fr.JSONRPC != mcp.JSONRPC_VERSION || p.Name != fastTool || len(p.Task) > 0 || len(p.RequestState) > 0 || len(p.InputResponses) > 0 {
		return hostCall{}, false
	}
	hc := hostCall{args: map[string]any{}}
	for k, v := range p.Meta {
		if k != "progressToken" {
			return hostCall{}, false // protocol _meta: mcp-go reads it
		}
		if len(v) > 0 && string(v) != "null" {
			hc.token = v
		}
	}
	if a := p.Arguments; len(a) > 0 && string(a) != "null" {
		dec := json.NewDecoder(bytes.NewReader(a))
		dec.UseNumber()
		if dec.Decode(&hc.args) != nil {
			return hostCall{}, false
		}
	}
	return hc, true
}

// serveFast runs one call_mcp_primitive through its handler and answers it.
func (h *hostIO) serveFast(ctx context.Context, id json.RawMessage, hc hostCall) {
	res, err := h.fast(context.WithValue(ctx, hostCallKey{}, hc), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: fastTool}})
	if err != nil {
		// wrap turns every error into a result; this is only a guard.
		res = errResult(err)
	}
	if raw, ok := h.out.pass.take(res); ok {
		frame := make([]byte, 0, len(raw)+len(id)+40)
		frame = append(frame, `{"jsonrpc":"2.0","id":`...)
		frame = append(frame, id...)
		frame = append(frame, `,"result":`...)
		frame = append(frame, raw...)
		frame = append(frame, "}\n"...)
		if _, err := h.out.writeFrame(frame, len(frame)); err != nil {
			h.logf("write to the host: %v", err)
		}
		return
	}
	h.write(mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Result: res})
}

// fastHandler is the handler of call_mcp_primitive as registered.
func (f *front) fastHandler() server.ToolHandlerFunc {
	for _, d := range f.toolDefs() {
		if d.name == fastTool {
			return f.wrap(d)
		}
	}
	return nil
}
