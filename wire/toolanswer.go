package wire

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// bigAnswer is the size from which an answer to an awaited tool call is
// decoded as a tool result where its line is read. Below it every line is
// decoded as any message is (its result kept as bytes, decoded again by
// whoever reads it): cheap at that size, and exactly as it always was.
const bigAnswer = 64 << 10

// maxAwaited bounds the set of awaited calls: it only decides how a big
// answer is decoded, and a target that never answers must not grow it.
const maxAwaited = 4096

// awaitedCalls are the keys of the tool calls (tools/call, tasks/result)
// sent on a channel and neither answered nor forgotten yet. The stdio
// reader decodes a big answer to one of them as a tool result at once: a
// message decoded first with its result kept as bytes costs json.Unmarshal
// a pass over every byte to check the line and another to find where the
// result ends, and decoding the result later a third, before the one that
// decodes it; for a 20 MB tool result those passes are most of what
// run-mcp spends on it.
type awaitedCalls struct {
	mu   sync.Mutex
	keys map[string]struct{}
}

// sent notes a request: a tool call is awaited until answered.
func (a *awaitedCalls) sent(o Outbound) {
	if o.Key == "" || (o.Method != string(mcp.MethodToolsCall) && o.Method != string(mcp.MethodTasksResult)) {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.keys == nil {
		a.keys = map[string]struct{}{}
	}
	if len(a.keys) < maxAwaited {
		a.keys[o.Key] = struct{}{}
	}
}

// waiting says some tool call is awaited (none on a nil set, a decoder's
// in tests).
func (a *awaitedCalls) waiting() bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.keys) > 0
}

// answered takes key off the set and says whether it was on it.
func (a *awaitedCalls) answered(key string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.keys[key]
	delete(a.keys, key)
	return ok
}

// toolEnvelope is a JSON-RPC message read as the answer to a tool call:
// envelope with its result decoded straight into a tool result.
type toolEnvelope struct {
	JSONRPC *string                 `json:"jsonrpc"`
	ID      json.RawMessage         `json:"id"`
	Method  *string                 `json:"method"`
	Params  aliasRaw                `json:"params"`
	Result  *toolResult[itemFields] `json:"result"`
	Error   *RPCError               `json:"error"`
}

// toolAnswer decodes a big line in one json.Unmarshal as the answer to an
// awaited tool call, its result straight into the mcp.CallToolResult that
// ParseToolResult would make of it. It declines (and the line is decoded
// as any other) unless the line is exactly that: a well-formed JSON-RPC
// response with a result and no error, answering an awaited call, whose
// result decodes on ParseToolResult's one-pass path. So what the owner
// gets is what it got before, the result decoded already; one difference
// is left: of a line that names "result" twice, the message read as any
// other keeps the last, where this decode merges the two.
func (d *decoder) toolAnswer(line []byte, now time.Time) (Message, bool) {
	var env toolEnvelope
	if json.Unmarshal(line, &env) != nil || env.JSONRPC == nil || *env.JSONRPC != "2.0" ||
		env.Method != nil || env.Error != nil || env.Result == nil || !validID(env.ID) {
		return Message{}, false
	}
	content, ok := commonContent(env.Result.Content)
	if !ok {
		return Message{}, false
	}
	res, err := toolResultOf(*env.Result, content)
	if err != nil || !d.awaited.answered(IDKey(env.ID)) {
		return Message{}, false
	}
	return Message{ID: env.ID, Params: json.RawMessage(env.Params), Tool: res, line: line, Line: d.lines, Time: now}, true
}
