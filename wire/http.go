package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Defaults of HTTPOptions.
const (
	defaultCloseTimeout = 3 * time.Second
	defaultPostTimeout  = 30 * time.Second
	defaultMaxResumes   = 3
)

// HTTPOptions says how to reach a Streamable HTTP target.
type HTTPOptions struct {
	// URL is the target's MCP endpoint, http or https.
	URL string
	// Headers are sent with every request to URL's origin (scheme, host
	// and port) and to no other: a request redirected to another origin
	// goes on without them (with the protocol's own headers only: the
	// session id, MCP-Protocol-Version, Mcp-Method, Mcp-Name), and the
	// redirect names them in Withheld.
	Headers map[string]string
	// RoundTripper carries every request to URL's origin, and only those:
	// it is the place for authorization, and whatever it adds to a request
	// (an Authorization header) therefore never leaves the origin either.
	// A request redirected to another origin goes through the default
	// transport. nil: the default transport, with timeouts on the dial and
	// the TLS handshake and none on a body (a stream may stay open for
	// hours).
	RoundTripper http.RoundTripper
	// CloseTimeout bounds Close's wait for the notifications and answers
	// still being posted, and its DELETE of the session (0: 3 s).
	CloseTimeout time.Duration
	// PostTimeout bounds posting one notification or answer (0: 30 s).
	PostTimeout time.Duration
	// MaxResumes is how many times in a row a stream is resumed (legacy
	// revisions: GET with Last-Event-ID) without bringing a new event before
	// the channel gives up on it (0: 3). A server that polls by closing the
	// stream after each event it sends is followed for as long as it does.
	MaxResumes int
}

// HTTP is a Channel to a Streamable HTTP target: every request is its own
// POST, whose answer is one JSON message or an event stream; notifications
// and answers are POSTs the server accepts with 202. It speaks both eras:
// in the legacy one it keeps the session id the server gave and can listen
// on the standalone GET stream (Listen); for a request of a modern revision
// (2026-07-28 on) it sends the standard headers and neither a session id
// nor a GET.
//
// Invariants: nothing blocks the caller of Send, Forget or Listen; every
// goroutine it starts is counted in wg and ends once the channel stops, if
// not before, except the one that stops it (finish), which waits for them
// all and then sends the sink's last Inbound, the one with Closed;
// configured headers and whatever the RoundTripper adds go to the target's
// origin only; no header value ever appears in an error or a message.
type HTTP struct {
	url          *url.URL
	headers      http.Header // configured, under canonical names
	names        []string    // their names, sorted, for Redirect.Withheld
	origin       *http.Client
	foreign      *http.Client
	closeTimeout time.Duration
	postTimeout  time.Duration
	maxResumes   int
	sink         chan<- Inbound

	// ctx ends every request and stream; it is cancelled when the channel
	// stops.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	session  string // the legacy session id ("" none)
	protocol string // the latest Outbound.Protocol, for GET and DELETE
	listened bool
	requests map[string]*inflight // by key, for Forget
	// posted is closed once the latest notification or answer has been
	// posted: the next POST of any kind waits for it, so the server gets
	// them in the order they were sent (initialized before the requests
	// that follow it).
	posted chan struct{}

	ended chan struct{} // every goroutine but the last delivery returned
	done  chan struct{}
}

// inflight is a request in flight, so that Forget can end it.
type inflight struct{ cancel context.CancelFunc }

var _ Channel = (*HTTP)(nil)

// NewHTTP returns a channel to the target at opts.URL. Everything the
// target says arrives on sink, the last Inbound with Closed; the owner reads
// sink until then. Nothing is sent before the first Send.
func NewHTTP(opts HTTPOptions, sink chan<- Inbound) (*HTTP, error) {
	u, err := url.Parse(opts.URL)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) { // it quotes the URL, password and all
			err = uerr.Err
		}
		return nil, fmt.Errorf("the server URL cannot be parsed: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("the server URL %s is not an http:// or https:// URL with a host", u.Redacted())
	}
	headers, names, err := checkHeaders(opts.Headers)
	if err != nil {
		return nil, err
	}
	plain := DefaultHTTPTransport()
	var rt http.RoundTripper = plain
	if opts.RoundTripper != nil {
		rt = opts.RoundTripper
	}
	h := &HTTP{url: u, headers: headers, names: names, sink: sink,
		origin:       &http.Client{Transport: rt, CheckRedirect: noRedirects},
		foreign:      &http.Client{Transport: plain, CheckRedirect: noRedirects},
		closeTimeout: orDefault(opts.CloseTimeout, defaultCloseTimeout),
		postTimeout:  orDefault(opts.PostTimeout, defaultPostTimeout),
		maxResumes:   opts.MaxResumes,
		requests:     map[string]*inflight{},
		posted:       make(chan struct{}),
		ended:        make(chan struct{}),
		done:         make(chan struct{}),
	}
	if h.maxResumes <= 0 {
		h.maxResumes = defaultMaxResumes
	}
	close(h.posted)
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// checkHeaders refuses a header the transport could not send, naming it
// (never its value).
func checkHeaders(in map[string]string) (http.Header, []string, error) {
	out := http.Header{}
	var names []string
	for name, value := range in {
		if CheckHeaderName(name) != nil {
			return nil, nil, fmt.Errorf("the header name %q is not one HTTP allows", name)
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return nil, nil, fmt.Errorf("the value of header %s has a line break or a NUL, which HTTP cannot carry", name)
		}
		key := http.CanonicalHeaderKey(name)
		out.Set(key, value)
		names = append(names, key)
	}
	slices.Sort(names)
	return out, slices.Compact(names), nil
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// DefaultHTTPTransport bounds the dial and the TLS handshake, never a body
// (a stream may stay open for hours): the transport under an owner's
// RoundTripper hook, too.
func DefaultHTTPTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Send posts o on a goroutine of its own. A request's answer, and whatever
// else comes on its stream, arrives on the sink with Stream = o.Key; a
// request that fails arrives as a Failure. A notification or answer that
// the server refuses is a transport error. Send fails only once the channel
// is closed, with an error that wraps net.ErrClosed.
func (h *HTTP) Send(o Outbound) error {
	o.Msg = slices.Clone(o.Msg)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("the connection to %s is closed: %w", h.url.Redacted(), net.ErrClosed)
	}
	if o.Protocol != "" {
		h.protocol = o.Protocol
	}
	after := h.posted
	h.wg.Add(1)
	if o.Key == "" {
		mine := make(chan struct{})
		h.posted = mine
		go h.post(o, after, mine)
		return nil
	}
	ctx, cancel := context.WithCancel(h.ctx)
	r := &inflight{cancel: cancel}
	h.requests[o.Key] = r
	go h.call(ctx, r, o, after)
	return nil
}

// Forget ends request key's POST or stream, if it is still open; nothing
// more is reported about it.
func (h *HTTP) Forget(key string) {
	h.mu.Lock()
	r := h.requests[key]
	delete(h.requests, key)
	h.mu.Unlock()
	if r != nil {
		r.cancel()
	}
}

// finished removes r once its goroutine is over.
func (h *HTTP) finished(key string, r *inflight) {
	h.mu.Lock()
	if h.requests[key] == r {
		delete(h.requests, key)
	}
	h.mu.Unlock()
	r.cancel()
}

// Listen opens the standalone GET stream of a legacy session, on which the
// server sends what belongs to no request; its messages have Stream "". It
// does nothing on a modern revision (which has no such stream), while the
// stream is open, or once the channel is closed; once the stream is given
// up (the session expired, say), Listen opens it again. A server that
// offers none (405) is fine: nothing is said.
func (h *HTTP) Listen() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || h.listened || mcp.IsModernProtocol(h.protocol) {
		return
	}
	h.listened = true
	h.wg.Add(1)
	go h.listen()
}

// Close ends the channel: it waits (CloseTimeout at most) for the
// notifications and answers still being posted, ends the legacy session
// with a DELETE, ends every request and stream, and waits for every
// goroutine. The sink's last Inbound (Closed) follows, then Done closes.
func (h *HTTP) Close() error {
	h.stop(nil)
	<-h.ended
	return nil
}

// Done is closed once the last Inbound has been handed to the sink.
func (h *HTTP) Done() <-chan struct{} { return h.done }

// stop ends the channel with reason (nil: Close) unless it is ending
// already. It never blocks: a reader that found a message over the cap
// calls it and returns.
func (h *HTTP) stop(reason error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	go h.finish(reason, h.posted, h.session, h.protocol)
}

// finish ends the channel, on a goroutine of its own: the POSTs already
// going (posted) may finish and the session is deleted, both within
// closeTimeout; then every request and stream is cancelled, every goroutine
// awaited, and the last Inbound sent.
func (h *HTTP) finish(reason error, posted <-chan struct{}, session, protocol string) {
	ctx, cancel := context.WithTimeout(context.Background(), h.closeTimeout)
	select {
	case <-posted:
	case <-ctx.Done():
	}
	if session != "" && !mcp.IsModernProtocol(protocol) {
		h.deleteSession(ctx, session, protocol)
	}
	cancel()
	h.cancel()
	h.wg.Wait()
	h.origin.CloseIdleConnections()
	h.foreign.CloseIdleConnections()
	close(h.ended)
	last := Inbound{Closed: true, Err: reason}
	if reason != nil {
		last.Errors = []TransportError{{Time: time.Now(), Message: reason.Error()}}
	}
	h.sink <- last
	close(h.done)
}

// deleteSession tells the server the session is over. Its answer does not
// matter (405: the server does not let clients end sessions).
func (h *HTTP) deleteSession(ctx context.Context, session, protocol string) {
	hdr := http.Header{}
	hdr.Set(mcp.HeaderSessionID, session)
	if protocol != "" {
		hdr.Set(mcp.HeaderProtocolVersion, protocol)
	}
	resp, _, err := h.exchange(ctx, http.MethodDelete, nil, hdr, false)
	if err == nil {
		drainClose(resp)
	}
}

func (h *HTTP) closedNow() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

// deliver hands in to the owner, unless the channel stops first.
func (h *HTTP) deliver(in Inbound) bool {
	select {
	case h.sink <- in:
		return true
	case <-h.ctx.Done():
		return false
	}
}

func (h *HTTP) fail(key string, err error) {
	h.deliver(Inbound{Failed: []Failure{{Key: key, Err: err}}})
}

func (h *HTTP) transportError(format string, args ...any) {
	h.deliver(Inbound{Errors: []TransportError{{Time: time.Now(), Message: fmt.Sprintf(format, args...)}}})
}

// sessionFor is the session id a message of protocol carries: none on a
// modern revision.
func (h *HTTP) sessionFor(protocol string) string {
	if mcp.IsModernProtocol(protocol) {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.session
}

// takeSession keeps the session id a response gives, when its request
// carried none (the initialize of a legacy session).
func (h *HTTP) takeSession(resp *http.Response, sent, protocol string) {
	id := resp.Header.Get(mcp.HeaderSessionID)
	if id == "" || sent != "" || mcp.IsModernProtocol(protocol) {
		return
	}
	h.mu.Lock()
	if h.session == "" {
		h.session = id
	}
	h.mu.Unlock()
}

// expire forgets a session the server no longer knows, so the next
// initialize starts a new one.
func (h *HTTP) expire(session string) {
	h.mu.Lock()
	if h.session == session {
		h.session = ""
	}
	h.mu.Unlock()
}

func (h *HTTP) currentProtocol() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.protocol
}
