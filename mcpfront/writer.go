package mcpfront

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// lockedWriter is the one writer of stdout, the host's protocol channel:
// each frame is written whole under one lock, so a line is never torn.
//
// Frames are coalesced: each goes into a buffer under the lock, and the
// buffer is flushed by the writer that finds no other frame queued behind
// it, so a burst of answers leaves in a few writes instead of one system
// call per frame, and a lone frame still leaves at once.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	bw     *bufio.Writer
	queued atomic.Int64
}

// frame writes one message (without its newline).
func (l *lockedWriter) frame(msg []byte) error {
	l.queued.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bw == nil {
		l.bw = bufio.NewWriterSize(l.w, 64<<10)
	}
	_, err := l.bw.Write(msg)
	if err == nil {
		err = l.bw.WriteByte('\n')
	}
	if l.queued.Add(-1) == 0 || err != nil {
		if ferr := l.bw.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		// A failed flush leaves the buffer unusable; start clean, so a
		// later frame is not glued to the remains of a torn one.
		l.bw = nil
	}
	return err
}

// send encodes v as one frame.
func (l *lockedWriter) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return l.frame(b)
}

// notify writes one notification.
func (l *lockedWriter) notify(method string, params any) error {
	return l.send(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{mcp.JSONRPC_VERSION, method, params})
}

// result answers request id with a result already encoded (the target's
// bytes, as it sent them, or run-mcp's own). Both parts are JSON that was
// read or encoded by encoding/json, so they are joined as they are.
func (l *lockedWriter) result(id, result json.RawMessage) error {
	if bytes.IndexByte(result, '\n') >= 0 {
		// Pretty-printed (an HTTP target's body): one line on stdio.
		var b bytes.Buffer
		if err := json.Compact(&b, result); err != nil {
			return err
		}
		result = b.Bytes()
	}
	msg := make([]byte, 0, len(result)+len(id)+40)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, id...)
	msg = append(msg, `,"result":`...)
	msg = append(msg, result...)
	msg = append(msg, '}')
	return l.frame(msg)
}

// rpcError answers request id with a JSON-RPC error.
func (l *lockedWriter) rpcError(id json.RawMessage, code int, message string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	return l.send(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{mcp.JSONRPC_VERSION, id, rpcErr{Code: code, Message: message}})
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}
