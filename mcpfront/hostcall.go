package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// What the host sends must reach the target as it was sent: mcp-go decodes
// a request's arguments, its id and its progress token with float64
// numbers, so 12345678901234567890 would arrive as 12345678901234567000.
// hostIO reads those parts of each request itself, numbers as their
// literals, and gives them to the handler (and the id to the reply).

type hostCallKey struct{}

// hostCall is what run-mcp reads of a tools/call itself.
type hostCall struct {
	args  map[string]any  // json.Number for every number
	token json.RawMessage // params._meta.progressToken, as sent
	// state and answers are a 2026-07-28 host's retry of a call that
	// returned input_required: params.requestState and
	// params.inputResponses, each answer as the host wrote it.
	state   string
	answers map[string]json.RawMessage
}

// readHostCall decodes a tools/call message; ok is false when its
// arguments are not an object (mcp-go's own reading then stands).
func readHostCall(msg []byte) (hostCall, bool) {
	var m struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
			Meta      struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
			RequestState   string                     `json:"requestState"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return hostCall{}, false
	}
	hc := hostCall{args: map[string]any{}, state: m.Params.RequestState, answers: m.Params.InputResponses}
	if t := m.Params.Meta.ProgressToken; len(t) > 0 && string(t) != "null" {
		hc.token = t
	}
	if a := m.Params.Arguments; len(a) > 0 && string(a) != "null" {
		dec := json.NewDecoder(bytes.NewReader(a))
		dec.UseNumber()
		if dec.Decode(&hc.args) != nil {
			return hostCall{}, false
		}
	}
	return hc, true
}

func withHostCall(ctx context.Context, msg []byte) context.Context {
	if hc, ok := readHostCall(msg); ok {
		return context.WithValue(ctx, hostCallKey{}, hc)
	}
	return ctx
}

func hostCallFrom(ctx context.Context) (hostCall, bool) {
	hc, ok := ctx.Value(hostCallKey{}).(hostCall)
	return hc, ok
}

// withID answers with the id exactly as the host sent it (1.0 stays 1.0,
// a 20-digit integer keeps its digits).
func withID(resp mcp.JSONRPCMessage, id json.RawMessage) mcp.JSONRPCMessage {
	if len(id) == 0 {
		return resp
	}
	rid := mcp.NewRequestId(id)
	switch r := resp.(type) {
	case mcp.JSONRPCResponse:
		r.ID = rid
		return r
	case *mcp.JSONRPCResponse:
		c := *r
		c.ID = rid
		return c
	case mcp.JSONRPCError:
		r.ID = rid
		return r
	case *mcp.JSONRPCError:
		c := *r
		c.ID = rid
		return c
	}
	return resp
}
