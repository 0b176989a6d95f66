package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
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

// scan reads fr from msg without encoding/json: the members a tools/call
// has, walked in place (jsonscan validates as it goes). Any other member,
// or a value of another type, makes it report false, with fr reset; the
// caller then decodes msg with encoding/json, which matches keys without
// regard to case and says what is wrong.
func (fr *hostFrame) scan(msg []byte) bool {
	ok := true
	whole := jsonscan.Object(msg, func(k string, v []byte) bool {
		switch k {
		case "jsonrpc":
			fr.JSONRPC, ok = jsonscan.Unquote(v)
		case "id":
			fr.ID = v
		case "method":
			fr.Method, ok = jsonscan.Unquote(v)
		case "params":
			ok = fr.scanParams(v)
		default:
			ok = false
		}
		return ok
	})
	if !whole || !ok {
		*fr = hostFrame{}
		return false
	}
	return true
}

func (fr *hostFrame) scanParams(v []byte) bool {
	if string(v) == "null" {
		return true
	}
	p := &fr.Params
	ok := true
	return jsonscan.Object(v, func(k string, v []byte) bool {
		switch k {
		case "name":
			p.Name, ok = jsonscan.Unquote(v)
		case "arguments":
			p.Arguments = v
		case "task":
			p.Task = v
		case "requestState":
			p.RequestState = v
		case "inputResponses":
			p.InputResponses = v
		case "_meta":
			p.Meta, ok = scanMeta(v)
		default:
			ok = false
		}
		return ok
	}) && ok
}

func scanMeta(v []byte) (map[string]json.RawMessage, bool) {
	if string(v) == "null" {
		return nil, true
	}
	m := map[string]json.RawMessage{}
	return m, jsonscan.Object(v, func(k string, v []byte) bool {
		m[k] = v
		return true
	})
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
	return hc, true
}

// decodeArgs reads the call's arguments into hc, numbers as written; false
// when they are not an object (mcp-go's dispatch then reports it).
func (fr *hostFrame) decodeArgs(hc *hostCall) bool {
	if a := fr.Params.Arguments; len(a) > 0 && string(a) != "null" {
		dec := json.NewDecoder(bytes.NewReader(a))
		dec.UseNumber()
		if dec.Decode(&hc.args) != nil {
			return false
		}
	}
	return true
}

// tryExpress starts fr on the express path; false leaves it to the caller.
func (h *hostIO) tryExpress(fr *hostFrame, token json.RawMessage) bool {
	if !h.start() {
		return true // serve is winding down: no request starts
	}
	id, key := fr.ID, string(fr.ID)
	var cn *canceler
	finish := func(res *mcp.CallToolResult, raw json.RawMessage) {
		defer h.wg.Done()
		h.untrack(key, cn)
		h.answer(id, res, raw)
	}
	// Filed before the call starts, since its answer may come before
	// express returns; the host's cancel is read by this goroutine only
	// after that.
	cn = h.track(key, func() {})
	cancel, ok := h.express(fr.Params.Arguments, token, &h.batch, finish)
	if !ok {
		h.untrack(key, cn)
		h.wg.Done()
		return false
	}
	h.mu.Lock()
	cn.cancel = cancel
	h.mu.Unlock()
	return true
}

// answer writes the response to the host: the target's bytes when raw is
// set, else res.
func (h *hostIO) answer(id json.RawMessage, res *mcp.CallToolResult, raw json.RawMessage) {
	if raw == nil {
		h.write(mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Result: res})
		return
	}
	frame := make([]byte, 0, len(raw)+len(id)+40)
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	frame = append(frame, `,"result":`...)
	frame = append(frame, raw...)
	frame = append(frame, "}\n"...)
	if _, err := h.out.writeFrame(frame, len(frame)); err != nil {
		h.logf("write to the host: %v", err)
	}
	h.requestDue()
}

// serveFast runs one call_mcp_primitive through its handler and answers it.
func (h *hostIO) serveFast(ctx context.Context, id json.RawMessage, hc hostCall) {
	res, err := h.fast(context.WithValue(ctx, hostCallKey{}, hc), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: fastTool}})
	if err != nil {
		// wrap turns every error into a result; this is only a guard.
		res = errResult(err)
	}
	raw, _ := h.out.pass.take(res)
	h.answer(id, res, raw)
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
