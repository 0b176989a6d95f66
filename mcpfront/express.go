package mcpfront

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/jsonscan"
	"github.com/run-mcp/run-mcp/wire"
)

// The agent's commonest request, call_mcp_primitive of a tool on a live
// stdio connection with nothing but type, name, arguments, connection and
// timeout_ms, goes by the express path (actors.Conn.Express): the reader of
// the host's stdin checks it and writes it to the target, and the target's
// read loop writes the answer to the host, with no goroutine per call and no
// mailbox. What the agent sees is the same as by the handler: the target's
// bytes for a result with nothing to intercept, else the same shaped result
// or error. Anything the express path cannot decide at once (a connection
// not live or named ambiguously, a tool not in the cached list or missing an
// argument, an unusual argument) takes the handler, which explains.

// expressInline bounds a result shaped on the target's read loop; a bigger
// one (which may be spilled to a file) is shaped on a goroutine of its own.
const expressInline = 32 << 10

// expressFinish answers the host: raw, when set, is the target's result as
// it was sent; otherwise res.
type expressFinish func(res *mcp.CallToolResult, raw json.RawMessage)

// express starts a call_mcp_primitive whose arguments are argsRaw on the
// express path; ok is false when it must take the handler instead (nothing
// was sent then). finish is called exactly once when ok.
func (f *front) express(argsRaw, token json.RawMessage, batch *wire.Batch, finish expressFinish) (cancel func(), ok bool) {
	// argsRaw was checked as JSON with the frame it came in, so it is
	// walked here, not decoded again.
	var a expressArgs
	if !a.read(argsRaw) {
		return nil, false
	}
	kind, ok1 := jsonString(a.kind)
	name, ok2 := jsonString(a.name)
	conn, ok3 := jsonString(a.conn)
	timeout, ok4 := f.expressTimeout(a.timeout)
	if !ok1 || !ok2 || !ok3 || !ok4 || kind != actors.KindTool || name == "" {
		return nil, false
	}
	c, found := f.reg.ResolveNow(conn)
	if !found || !c.ToolReady(name, a.args) {
		return nil, false
	}
	req := actors.ExpressRequest{Name: name, Args: a.args, Timeout: timeout, OnProgress: f.progressRelayTo(token), Batch: batch}
	return c.Express(req, func(out *actors.Outcome, err error) {
		if err == nil && len(out.Raw) <= expressInline {
			f.expressDone(c, out, err, finish)
			return
		}
		go f.expressDone(c, out, err, finish)
	})
}

// expressArgs are call_mcp_primitive's arguments as raw values.
type expressArgs struct {
	kind, name, conn, timeout []byte
	args                      json.RawMessage // the tool's: an object, or nil
}

// read walks the arguments object; false when it is not one, names a key
// the express path does not take, or the tool's arguments are no object.
func (a *expressArgs) read(raw []byte) bool {
	ok := true
	isObj := jsonscan.Object(raw, func(k string, v []byte) bool {
		switch k {
		case "type":
			a.kind = v
		case "name":
			a.name = v
		case "connection":
			a.conn = v
		case "timeout_ms":
			a.timeout = v
		case "arguments":
			if string(v) != "null" {
				a.args = v
				ok = len(v) > 0 && v[0] == '{'
			}
		default:
			ok = false
		}
		return ok
	})
	return isObj && ok
}

// jsonString reads a JSON string; an absent value is "", ok.
func jsonString(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", true
	}
	return jsonscan.Unquote(raw)
}

// expressTimeout reads timeout_ms: absent is the default; only a positive
// whole number is taken here (anything else is the handler's to refuse).
func (f *front) expressTimeout(raw json.RawMessage) (time.Duration, bool) {
	if len(raw) == 0 {
		return f.opts.Timeout, true
	}
	ms, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil || ms <= 0 || ms > int64(time.Duration(1<<62)/time.Millisecond) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// expressDone shapes an express call's outcome as the handler would and
// answers the host.
func (f *front) expressDone(c *actors.Conn, out *actors.Outcome, err error, finish expressFinish) {
	defer func() {
		if r := recover(); r != nil {
			f.logf("internal error in %s: %v\n%s", fastTool, r, debug.Stack())
			finish(errResult(fmt.Errorf("run-mcp hit an internal error in %s (%v); the connection is kept. Please report it", fastTool, r)), nil)
		}
	}()
	if err != nil {
		finish(errResult(f.notConnected(fastTool, taskHint(err, c.Name()))), nil)
		return
	}
	if f.plainResult(out.Raw) {
		finish(nil, out.Raw)
		return
	}
	res, _, untouched, err := f.shape(actors.KindTool, out.Raw, 0)
	switch {
	case err != nil:
		finish(errResult(f.notConnected(fastTool, err)), nil)
	case untouched:
		finish(nil, out.Raw)
	default:
		finish(res, nil)
	}
}

// plainResult says, without decoding it, that a tool result is one the
// handler would pass on untouched: small enough that no text in it can be
// truncated or saved, no item that could be media or an embedded resource,
// and a content array at its top level (the handler refuses a result
// without one). Anything else is shaped.
func (f *front) plainResult(raw json.RawMessage) bool {
	if !f.ic.SmallPlain(len(raw)) {
		return false
	}
	for _, kind := range [][]byte{[]byte(`"image"`), []byte(`"audio"`), []byte(`"resource"`)} {
		if bytes.Contains(raw, kind) {
			return false
		}
	}
	content, ok := jsonscan.Lookup(raw, "content")
	return ok && len(content) > 0 && content[0] == '['
}

// progressRelayTo forwards the target's progress to the host under the
// host's token (nil when the host asked for none).
func (f *front) progressRelayTo(token json.RawMessage) func(actors.ProgressEvent) {
	if len(token) == 0 || string(token) == "null" {
		return nil
	}
	return f.progressRelay(context.WithValue(context.Background(), progressTokenKey{}, token))
}
