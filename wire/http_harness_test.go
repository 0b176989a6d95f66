package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// httpOwner is the owner of an HTTP channel in a test: it reads the sink
// as the connection's actor would, and lets the test wait for what came.
type httpOwner struct {
	t    *testing.T
	ch   *HTTP
	mu   sync.Mutex
	seen []Inbound
	more chan struct{}
}

// newHTTPOwner makes a channel to opts.URL and reads its sink until the
// end. The channel is closed, and its end awaited, when the test ends.
func newHTTPOwner(t *testing.T, opts HTTPOptions) *httpOwner {
	t.Helper()
	sink := make(chan Inbound)
	ch, err := NewHTTP(opts, sink)
	if err != nil {
		t.Fatalf("NewHTTP: %v", err)
	}
	o := &httpOwner{t: t, ch: ch, more: make(chan struct{}, 1)}
	go o.read(sink, make(chan struct{}))
	t.Cleanup(func() {
		_ = ch.Close()
		waitClosed(t, "the channel's last Inbound", ch.Done())
	})
	return o
}

// read keeps what the sink hands over until its last Inbound, then closes
// done.
func (o *httpOwner) read(sink <-chan Inbound, done chan<- struct{}) {
	defer close(done)
	for in := range sink {
		o.mu.Lock()
		o.seen = append(o.seen, in)
		o.mu.Unlock()
		select {
		case o.more <- struct{}{}:
		default:
		}
		if in.Closed {
			return
		}
	}
}

// await returns the first Inbound so far, or to come within patience,
// that ok accepts.
func (o *httpOwner) await(what string, ok func(Inbound) bool) Inbound {
	o.t.Helper()
	deadline := time.After(patience)
	for {
		o.mu.Lock()
		for _, in := range o.seen {
			if ok(in) {
				o.mu.Unlock()
				return in
			}
		}
		o.mu.Unlock()
		select {
		case <-o.more:
		case <-deadline:
			o.t.Fatalf("gave up waiting for %s; the channel handed over:\n%s", what, o.dump())
		}
	}
}

// message waits for the message with id key (a request's response or a
// server's request).
func (o *httpOwner) message(key string) Message {
	o.t.Helper()
	var m Message
	o.await("the message with id "+key, func(in Inbound) bool {
		for _, msg := range in.Messages {
			if IDKey(msg.ID) == key {
				m = msg
				return true
			}
		}
		return false
	})
	return m
}

// notification waits for a notification of method.
func (o *httpOwner) notification(method string) Message {
	o.t.Helper()
	var m Message
	o.await("a "+method+" notification", func(in Inbound) bool {
		for _, msg := range in.Messages {
			if msg.IsNotification() && msg.Method == method {
				m = msg
				return true
			}
		}
		return false
	})
	return m
}

// failure waits for request key's Failure.
func (o *httpOwner) failure(key string) error {
	o.t.Helper()
	var err error
	o.await("the failure of request "+key, func(in Inbound) bool {
		for _, f := range in.Failed {
			if f.Key == key {
				err = f.Err
				return true
			}
		}
		return false
	})
	return err
}

// transportError waits for a transport error that contains part.
func (o *httpOwner) transportError(part string) TransportError {
	o.t.Helper()
	var te TransportError
	o.await("a transport error saying "+part, func(in Inbound) bool {
		for _, e := range in.Errors {
			if strings.Contains(e.Message, part) {
				te = e
				return true
			}
		}
		return false
	})
	return te
}

// end waits for the last Inbound.
func (o *httpOwner) end() Inbound {
	o.t.Helper()
	return o.await("the channel's end", func(in Inbound) bool { return in.Closed })
}

// all is everything handed over so far.
func (o *httpOwner) all() []Inbound {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Inbound(nil), o.seen...)
}

// dump prints what came, for a failing test.
func (o *httpOwner) dump() string {
	var b strings.Builder
	for _, in := range o.all() {
		for _, m := range in.Messages {
			fmt.Fprintf(&b, "  message id=%s method=%s stream=%q result=%s\n", m.ID, m.Method, m.Stream, clip(m.Result))
		}
		for _, e := range in.Errors {
			fmt.Fprintf(&b, "  error: %s\n", e.Message)
		}
		for _, f := range in.Failed {
			fmt.Fprintf(&b, "  failed %s: %v\n", f.Key, f.Err)
		}
		for _, r := range in.Redirects {
			fmt.Fprintf(&b, "  redirect %d %s -> %s withheld %v\n", r.Status, r.From, r.To, r.Withheld)
		}
		if in.Closed {
			fmt.Fprintf(&b, "  closed: %v\n", in.Err)
		}
	}
	return b.String()
}

// text is everything handed over, as a person would read it.
func (o *httpOwner) text() string {
	var b strings.Builder
	for _, in := range o.all() {
		fmt.Fprintf(&b, "%+v\n", in)
		for _, f := range in.Failed {
			fmt.Fprintf(&b, "%v\n", f.Err)
		}
		if in.Err != nil {
			fmt.Fprintf(&b, "%v\n", in.Err)
		}
	}
	return b.String()
}

// send sends o and fails the test if the channel refuses it.
func (o *httpOwner) send(out Outbound) {
	o.t.Helper()
	if err := o.ch.Send(out); err != nil {
		o.t.Fatalf("Send: %v", err)
	}
}

// call sends request id (a number) with method and params.
func (o *httpOwner) call(id int, method, params, protocol string) {
	o.t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
	o.send(Outbound{Msg: []byte(msg), Key: fmt.Sprint(id), Method: method, Protocol: protocol})
}

// seenRequest is what a test server got.
type seenRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   string
}

// rpc is the part of a posted JSON-RPC message a test server routes on.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// testServer is an httptest server that logs every request it gets.
type testServer struct {
	*httptest.Server
	mu   sync.Mutex
	got  []seenRequest
	more chan struct{}
}

func newTestServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *testServer {
	t.Helper()
	s := &testServer{more: make(chan struct{}, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got = append(s.got, seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		s.mu.Unlock()
		select {
		case s.more <- struct{}{}:
		default:
		}
		handle(w, r, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests is what the server got so far.
func (s *testServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.got...)
}

// await waits for the first request ok accepts.
func (s *testServer) await(t *testing.T, what string, ok func(seenRequest) bool) seenRequest {
	t.Helper()
	deadline := time.After(patience)
	for {
		for _, r := range s.requests() {
			if ok(r) {
				return r
			}
		}
		select {
		case <-s.more:
		case <-deadline:
			t.Fatalf("gave up waiting for the server to get %s; it got %+v", what, s.requests())
		}
	}
}

func parseRPC(body []byte) rpc {
	var m rpc
	_ = json.Unmarshal(body, &m)
	return m
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// sse starts an event stream and returns a function that writes one raw
// event to it, flushed.
func sse(w http.ResponseWriter) func(string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	f.Flush()
	return func(event string) {
		_, _ = io.WriteString(w, event)
		f.Flush()
	}
}

func result(id json.RawMessage, res string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
}
