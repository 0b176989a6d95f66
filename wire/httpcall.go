package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// call posts request o and delivers what comes back, with Stream = o.Key,
// until its response came, the owner forgot it, or the channel stopped.
// Anything else that ends it is a Failure.
func (h *HTTP) call(ctx context.Context, r *inflight, o Outbound, after <-chan struct{}) {
	defer h.wg.Done()
	defer h.finished(o.Key, r)
	select {
	case <-after:
	case <-ctx.Done():
		return
	}
	session := h.sessionFor(o.Protocol)
	resp, at, err := h.exchange(ctx, http.MethodPost, o.Msg, postHeaders(o, session), true)
	if err != nil {
		if ctx.Err() == nil {
			h.fail(o.Key, err)
		}
		return
	}
	defer closeWith(ctx, resp)()
	switch {
	case resp.StatusCode == http.StatusNotFound && session != "":
		h.expire(session)
		h.fail(o.Key, statusError(resp, at, true))
		return
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && resp.Header.Get("WWW-Authenticate") != "":
		// A refusal to authorize: its challenge goes to the owner, who may
		// authorize and send the request again.
		h.fail(o.Key, statusError(resp, at, false))
		return
	case resp.StatusCode/100 == 4 && mediaType(resp) == "application/json" && h.errorAnswer(resp, o.Key):
		// The server refused the request with its JSON-RPC error (a
		// 2026-07-28 server answers -32022 with 400): the answer.
		return
	case resp.StatusCode != http.StatusOK:
		h.fail(o.Key, statusError(resp, at, false))
		return
	}
	h.takeSession(resp, session, o.Protocol)
	switch mediaType(resp) {
	case "application/json":
		h.readJSON(ctx, resp, at.Redacted(), o.Key)
	case "text/event-stream":
		h.readStream(ctx, newSSEReader(resp.Body), at.Redacted(), o)
	default:
		h.fail(o.Key, statusError(resp, at, false))
	}
}

// errorAnswer delivers a JSON-RPC error that answers request key, sent with
// an HTTP error status; false (nothing delivered) when the body is not that.
// The POST carried that one request, so an error without an id (the server
// could not read one) answers it too.
func (h *HTTP) errorAnswer(resp *http.Response, key string) bool {
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return false
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  *RPCError       `json:"error"`
	}
	id := bytes.TrimSpace(env.ID)
	if json.Unmarshal(data, &env) != nil || env.Error == nil || env.Method != nil {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), resp.Body))
		return false
	}
	if id = bytes.TrimSpace(env.ID); len(id) > 0 && string(id) != "null" && IDKey(id) != key {
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), resp.Body))
		return false
	}
	h.deliver(Inbound{Messages: []Message{{ID: json.RawMessage(key), Error: env.Error, Stream: key, Time: time.Now()}}})
	return true
}

// closeWith closes resp's body when ctx ends (a RoundTripper need not
// stop a body's read on its own) and returns what closes it at the end.
func closeWith(ctx context.Context, resp *http.Response) func() {
	stop := context.AfterFunc(ctx, func() { _ = resp.Body.Close() })
	return func() {
		stop()
		_ = resp.Body.Close()
	}
}

// postHeaders are the protocol's headers on a POST of o.
func postHeaders(o Outbound, session string) http.Header {
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	if o.Protocol != "" {
		hdr.Set(mcp.HeaderProtocolVersion, o.Protocol)
	}
	if session != "" {
		hdr.Set(mcp.HeaderSessionID, session)
	}
	if mcp.IsModernProtocol(o.Protocol) {
		for k, v := range standardHeaders(o) {
			hdr.Set(k, v)
		}
		for k, v := range o.Headers {
			hdr.Set(k, v)
		}
	}
	return hdr
}

// standardHeaders are Mcp-Method and Mcp-Name for o, from its Method and
// Name when the owner gave them, from the message otherwise.
func standardHeaders(o Outbound) map[string]string {
	if o.Method != "" && (o.Name != "" || !mcp.MethodRequiresNameHeader(mcp.MCPMethod(o.Method))) {
		hdr := map[string]string{mcp.HeaderMethod: o.Method}
		if o.Name != "" {
			if v, ok := mcp.EncodeHeaderValue(o.Name); ok {
				hdr[mcp.HeaderName] = v
			}
		}
		return hdr
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(o.Msg, &m) != nil || m.Method == "" {
		return nil
	}
	return mcp.StandardHeaders(o.Protocol, mcp.MCPMethod(m.Method), m.Params)
}

// readJSON delivers the messages of a JSON answer to request key; an answer
// without its response fails the request.
func (h *HTTP) readJSON(ctx context.Context, resp *http.Response, at, key string) {
	data, err := readBody(resp.Body, resp.ContentLength)
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		h.stop(err)
		return
	case err != nil:
		if ctx.Err() == nil {
			h.fail(key, fmt.Errorf("the answer from %s broke off: %w", at, err))
		}
		return
	}
	msgs, errs := decodeMessages(data, "the answer from "+at, time.Now())
	in := Inbound{Messages: msgs, Errors: errs}
	if !stamp(msgs, key) {
		in.Failed = []Failure{{Key: key, Err: fmt.Errorf("the answer from %s carried no response to the request: %s", at, clip(data))}}
	}
	h.deliver(in)
}

// stamp marks msgs as come on request key's stream, and says whether key's
// response is among them.
func stamp(msgs []Message, key string) bool {
	answered := false
	for i := range msgs {
		msgs[i].Stream = key
		if key != "" && msgs[i].Method == "" && IDKey(msgs[i].ID) == key {
			answered = true
		}
	}
	return answered
}

// readStream delivers the events of request o's stream until its response.
// A stream that ends before it is resumed, on a legacy revision, from the
// last event id the server gave, after the delay it asked for; it is given
// up after MaxResumes resumes in a row that brought no new event.
func (h *HTTP) readStream(ctx context.Context, p *sseReader, at string, o Outbound) {
	fruitless := 0
	closeResumed := func() {}
	defer func() { closeResumed() }()
	for {
		before := p.events
		answered, err := h.readEvents(p, o.Key, "an event on the stream from "+at)
		var tl *TooLargeError
		switch {
		case answered || ctx.Err() != nil || h.closedNow():
			return
		case errors.As(err, &tl):
			h.stop(err)
			return
		case mcp.IsModernProtocol(o.Protocol) || p.lastID == "":
			h.fail(o.Key, streamEnded(at, err))
			return
		}
		if p.events > before {
			fruitless = 0
		} else if fruitless++; fruitless >= h.maxResumes {
			h.fail(o.Key, fmt.Errorf("%w; it was resumed %d times in a row without a new event, and run-mcp gave up", streamEnded(at, err), h.maxResumes))
			return
		}
		resp, next, rerr := h.resume(ctx, p, o.Protocol)
		if rerr != nil {
			if ctx.Err() == nil {
				h.fail(o.Key, fmt.Errorf("%w, and resuming it failed: %w", streamEnded(at, err), rerr))
			}
			return
		}
		closeResumed()
		closeResumed = closeWith(ctx, resp)
		p.resumeOn(resp.Body)
		at = next.Redacted()
	}
}

// streamEnded says how a stream ended before the response came.
func streamEnded(at string, err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("the server at %s ended the event stream before the response to the request", at)
	}
	return fmt.Errorf("the event stream from %s broke off before the response to the request: %w", at, err)
}

// resume waits the delay the server asked for, then reopens p's stream
// with a GET carrying its last event id. It returns the new stream and
// where it came from.
func (h *HTTP) resume(ctx context.Context, p *sseReader, protocol string) (*http.Response, *url.URL, error) {
	if !sleep(ctx, p.delay()) {
		return nil, nil, ctx.Err()
	}
	session := h.sessionFor(protocol)
	hdr := getHeaders(protocol, session)
	hdr.Set(mcp.HeaderLastEventID, p.lastID)
	resp, at, err := h.exchange(ctx, http.MethodGet, nil, hdr, true)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotFound && session != "":
		h.expire(session)
		return nil, nil, statusError(resp, at, true)
	case resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream":
		return nil, nil, statusError(resp, at, false)
	}
	return resp, at, nil
}

// getHeaders are the protocol's headers on a GET of the event stream.
func getHeaders(protocol, session string) http.Header {
	hdr := http.Header{}
	hdr.Set("Accept", "text/event-stream")
	if protocol != "" {
		hdr.Set(mcp.HeaderProtocolVersion, protocol)
	}
	if session != "" {
		hdr.Set(mcp.HeaderSessionID, session)
	}
	return hdr
}

// sleep waits d, or less if ctx ends first (then false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// readEvents delivers each event's messages, with Stream = key, until the
// stream ends (the error says how) or key's response came (key "" never
// does). An event of a type other than "message" carries no JSON-RPC
// message: it is a transport error.
func (h *HTTP) readEvents(p *sseReader, key, where string) (bool, error) {
	for {
		ev, err := p.next()
		if err != nil {
			return false, err
		}
		now := time.Now()
		var in Inbound
		if ev.typ != "message" {
			in.Errors = []TransportError{{Time: now, Message: fmt.Sprintf("%s was an event of type %q, which carries no JSON-RPC message: %s", where, clip([]byte(ev.typ)), clip(ev.data))}}
		} else {
			in.Messages, in.Errors = decodeMessages(ev.data, where, now)
		}
		answered := stamp(in.Messages, key)
		if !h.deliver(in) || answered {
			return answered, nil
		}
	}
}
