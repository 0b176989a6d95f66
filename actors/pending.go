package actors

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
)

// pending is a request run-mcp sent a target and waits for the answer to,
// filed by its id on the actor. Exactly one of call, reply, stream and
// refresh says who waits for it.
type pending struct {
	sess   *session
	method string
	// call is the call this request belongs to (a call may send several:
	// each input round of a 2026-07-28 call is answered by a new request).
	call *callState
	// reply is an operation waiting for the answer (a housekeeping
	// request, the handshake); buffered, so the actor never waits on it.
	reply chan answer
	// stream is a subscriptions/listen stream: its answer ends it.
	stream *stream
	// refresh is a tools/list page asked for calls that wait on it.
	refresh *refresh
}

// answer is what became of a request: the result as sent, or why not.
type answer struct {
	result json.RawMessage
	err    error
}

// rpcRequest is a request on the wire.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      string `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcNotification is a notification on the wire.
type rpcNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// rpcResponse is an answer to a target's request.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wire.RPCError  `json:"error,omitempty"`
}

// send writes a request to s and files p under its id. name is the tool,
// prompt or resource it names (Mcp-Name over HTTP).
func (c *Conn) send(st *connState, s *session, p *pending, params any, name string) (key string, err error) {
	st.reqSeq++
	id := "run-mcp-" + strconv.FormatInt(st.reqSeq, 10)
	b, err := json.Marshal(rpcRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: p.method, Params: params})
	if err != nil {
		return "", fmt.Errorf("encode the %s request: %w", p.method, err)
	}
	key = wire.IDKey(mustJSON(id))
	p.sess = s
	st.pending[key] = p
	if err := s.ch.Send(wire.Outbound{Msg: b, Key: key, Method: p.method, Name: name, Protocol: s.protocol}); err != nil {
		delete(st.pending, key)
		return "", err
	}
	return key, nil
}

// notify writes a notification to s; a channel already closed is not an
// error worth reporting (the target is gone).
func (c *Conn) notify(s *session, method string, params any) {
	b, err := json.Marshal(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: method, Params: params})
	if err != nil {
		return
	}
	_ = s.ch.Send(wire.Outbound{Msg: b, Method: method, Protocol: s.protocol})
}

// respond answers a request of the target.
func (c *Conn) respond(s *session, id json.RawMessage, result any, rpcErr *wire.RPCError) {
	resp := rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Result: result, Error: rpcErr}
	if rpcErr == nil && result == nil {
		resp.Result = struct{}{}
	}
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
			Error: &wire.RPCError{Code: mcp.INTERNAL_ERROR, Message: "run-mcp could not encode its answer: " + err.Error()}})
	}
	_ = s.ch.Send(wire.Outbound{Msg: b, Protocol: s.protocol})
}

// forget drops a request given up on: its answer, if it still comes, is
// expected and no transport error. The set is bounded: a server that never
// answers thousands of timed-out requests must not grow it without end.
func (c *Conn) forget(st *connState, key string) {
	p := st.pending[key]
	delete(st.pending, key)
	if p != nil && p.sess != nil {
		p.sess.ch.Forget(key)
	}
	const maxLate = 4096
	if !st.late[key] {
		st.late[key] = true
		st.lateOrder = append(st.lateOrder, key)
		if len(st.lateOrder) > maxLate {
			delete(st.late, st.lateOrder[0])
			st.lateOrder = st.lateOrder[1:]
		}
	}
}

// cancelRequest tells the target that run-mcp no longer waits for the
// request key, and forgets it.
func (c *Conn) cancelRequest(st *connState, key, reason string) {
	p := st.pending[key]
	c.forget(st, key)
	if p == nil || p.sess == nil || p.sess.channelEnded {
		return
	}
	var id any
	_ = json.Unmarshal([]byte(key), &id)
	c.notify(p.sess, string(mcp.MethodNotificationCancelled), map[string]any{"requestId": id, "reason": reason})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings
	}
	return b
}

// targetError turns a JSON-RPC error answer into a TargetError.
func targetError(e *wire.RPCError) *TargetError {
	te := &TargetError{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		te.Data = e.Data
	}
	return te
}
