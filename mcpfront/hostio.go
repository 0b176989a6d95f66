package mcpfront

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
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

// reqParams is what run-mcp reads of a request's params, decoded once: the
// _meta of every request (the progress token the host offers, and what a
// 2026-07-28 host declares on each), and the fields of tools/call.
type reqParams struct {
	Meta struct {
		ProgressToken json.RawMessage         `json:"progressToken"`
		Protocol      string                  `json:"io.modelcontextprotocol/protocolVersion"`
		Capabilities  *mcp.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		LogLevel      mcp.LoggingLevel        `json:"io.modelcontextprotocol/logLevel"`
	} `json:"_meta"`
	Name           string                     `json:"name"`
	Arguments      json.RawMessage            `json:"arguments"`
	RequestState   *string                    `json:"requestState"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
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
		_ = f.out.rpcError(nil, mcp.PARSE_ERROR, "Parse error: the message is not a JSON-RPC message ("+wire.JSONWords(err)+")")
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
	m := &r.decoded
	r.decodeErr = json.Unmarshal(fr.Params, m)
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

// lockedWriter is the one writer of stdout, the host's protocol channel:
// each frame is written whole, newline included, in one write under one
// lock, so a line is never torn and never waits behind another's flush.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// frame writes one message (without its newline). msg is handed over: the
// newline may be appended in its spare capacity.
func (l *lockedWriter) frame(msg []byte) error {
	line := append(msg, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(line)
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

// request is one request of the host, from the moment it is read until it
// is answered (or cancelled: then it is never answered, as MCP asks).
type request struct {
	id     json.RawMessage // as the host sent it
	key    string
	method string
	params json.RawMessage
	// decoded is params as request read them; decodeErr says why they did
	// not fit (tools/call answers it; the other methods read what fitted).
	decoded   reqParams
	decodeErr error
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
