package mcpfront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
)

// maxHostMessage bounds one message from the host, as the target side does.
const maxHostMessage = 64 << 20

// hostFrame is one message from the host, decoded once: what routes it,
// and its params or answer as the host wrote them.
type hostFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// reqMeta is what run-mcp reads of a request's _meta: the progress token
// the host offers, and what a 2026-07-28 host declares on every request.
type reqMeta struct {
	Meta struct {
		ProgressToken json.RawMessage         `json:"progressToken"`
		Protocol      string                  `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities  *mcp.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		LogLevel      mcp.LoggingLevel        `json:"io.modelcontextprotocol/logLevel"`
	} `json:"_meta"`
}

// readLoop reads the host's stdin, one message per line, until it ends.
func (f *front) readLoop(ctx context.Context, in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line, err = f.readLong(br, line)
		}
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			f.dispatch(ctx, append([]byte(nil), msg...))
		}
		if err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// readLong reads the rest of a line longer than the buffer, up to the cap.
// Past the cap it stops keeping the line: what it has and the rest are
// streamed through an idScan and dropped, so memory stays at the cap, and
// the sender is answered (answerOversized). It returns a nil line then.
func (f *front) readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	buf := append([]byte(nil), first...)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxHostMessage {
			return nil, f.discardLong(br, buf, chunk, err)
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

func (f *front) discardLong(br *bufio.Reader, kept, chunk []byte, err error) error {
	var scan idScan
	scan.feed(kept)
	scan.feed(chunk)
	size := int64(len(kept) + len(chunk))
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		scan.feed(chunk)
		size += int64(len(chunk))
	}
	f.answerOversized(&scan, size)
	return err
}

// dispatch routes one message of the host: an answer to one of run-mcp's
// requests, a notification, or a request (answered by serve).
func (f *front) dispatch(ctx context.Context, msg []byte) {
	var fr hostFrame
	if err := json.Unmarshal(msg, &fr); err != nil {
		_ = f.out.rpcError(nil, mcp.PARSE_ERROR, "Parse error: the message is not JSON ("+err.Error()+")")
		return
	}
	hasID := len(fr.ID) > 0 && string(fr.ID) != "null"
	if hasID && !validID(fr.ID) {
		_ = f.out.rpcError(nil, mcp.INVALID_REQUEST, "Invalid Request: the id must be a string or a number (JSON-RPC 2.0), not "+clip(string(fr.ID), 40))
		return
	}
	if fr.JSONRPC != mcp.JSONRPC_VERSION {
		if hasID {
			_ = f.out.rpcError(fr.ID, mcp.INVALID_REQUEST, `Invalid Request: the message lacks "jsonrpc": "2.0"`)
		}
		return
	}
	switch {
	case fr.Method == nil && hasID:
		if !f.host.deliver(string(fr.ID), msg) {
			f.logf("the host answered id %s, which run-mcp never asked (or no longer waits for)", clip(string(fr.ID), 40))
		}
	case fr.Method == nil:
		_ = f.out.rpcError(nil, mcp.INVALID_REQUEST, "Invalid Request: a message with neither a method nor an id")
	case *fr.Method == "" && hasID:
		_ = f.out.rpcError(fr.ID, mcp.INVALID_REQUEST, "Invalid Request: the method is empty")
	case !hasID:
		f.notification(*fr.Method, fr.Params)
	default:
		f.request(ctx, &fr)
	}
}

// validID says a JSON-RPC id is a string or a number.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// notification handles what the host announces.
func (f *front) notification(method string, params json.RawMessage) {
	if method == string(mcp.MethodNotificationCancelled) {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.RequestID) > 0 {
			f.cancel(string(p.RequestID))
		}
	}
	// notifications/initialized and the rest need nothing.
}

// request serves one request of the host.
func (f *front) request(ctx context.Context, fr *hostFrame) {
	r := &request{id: fr.ID, key: string(fr.ID), method: *fr.Method, params: fr.Params}
	var m reqMeta
	_ = json.Unmarshal(fr.Params, &m)
	r.token = m.Meta.ProgressToken
	if string(r.token) == "null" {
		r.token = nil
	}
	if mcp.IsModernProtocol(m.Meta.Protocol) {
		r.modern, r.logLevel = true, m.Meta.LogLevel
		if m.Meta.Capabilities != nil {
			r.caps = *m.Meta.Capabilities
		}
		f.host.sawModern()
	} else {
		r.caps = f.host.legacyCaps()
	}
	switch *fr.Method {
	case string(mcp.MethodInitialize):
		f.initialize(r)
	case string(mcp.MethodServerDiscover):
		f.discover(r)
	case string(mcp.MethodPing):
		f.reply(r, json.RawMessage(`{}`))
	case string(mcp.MethodToolsList):
		f.reply(r, f.toolsList)
	case string(mcp.MethodSetLogLevel):
		f.setLevel(r)
	case string(mcp.MethodToolsCall):
		f.toolCall(ctx, r)
	default:
		f.replyError(r, mcp.METHOD_NOT_FOUND, fmt.Sprintf("Method not found: run-mcp's agent server does not serve %s (it offers tools: tools/list, tools/call)", *fr.Method))
	}
}

// answerOversized tells whoever is waiting that a message of size bytes was
// over the cap and discarded: the host, with a JSON-RPC error for the id of
// its request, or our own request to the host, when this was its answer.
func (f *front) answerOversized(s *idScan, size int64) {
	s.end()
	why := fmt.Sprintf("the message is %s bytes, over run-mcp's limit of %d MB (%s bytes) for one message; it was discarded unread",
		commas(size), maxHostMessage>>20, commas(maxHostMessage))
	if s.id == nil {
		f.logf("%s, and no top-level id was found in it, so no answer can be sent", why)
		return
	}
	f.logf("%s; answering id %s with an error", why, s.id)
	message := "Invalid Request: " + why + ". Send less in one message (a large argument can be a file path instead)."
	if !s.hasMethod && f.host.waiting(string(s.id)) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "error": rpcErr{Code: mcp.INVALID_REQUEST, Message: message}})
		f.host.deliver(string(s.id), b)
		return
	}
	_ = f.out.rpcError(s.id, mcp.INVALID_REQUEST, message)
}
