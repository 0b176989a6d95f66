package wire

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mark3labs/mcp-go/mcp"
)

// legacyServer answers initialize with a session id, accepts
// notifications and DELETE, and hands everything else to rest.
func legacyServer(t *testing.T, rest func(w http.ResponseWriter, r *http.Request, body []byte)) *testServer {
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		m := parseRPC(body)
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodPost && m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, result(m.ID, `{"protocolVersion":"2025-11-25"}`))
		case r.Method == http.MethodPost && m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			rest(w, r, body)
		}
	})
}

// initialize opens the legacy session.
func (o *httpOwner) initialize() {
	o.t.Helper()
	o.call(1, "initialize", `{}`, "")
	o.message("1")
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		Method: "notifications/initialized", Protocol: mcp.ProtocolVersion20251125})
}

// As in the conformance suite's sse-retry scenario: the server primes the
// call's stream with an event id and a retry delay and closes it; the
// channel waits that long, reopens it with GET and Last-Event-ID, and the
// response that comes there is the call's.
func TestHTTPResumesAStreamWithLastEventID(t *testing.T) {
	const retry = 300 * time.Millisecond
	var mu sync.Mutex
	var closedAt, resumedAt time.Time
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodPost {
			sse(w)("id: event-1\nretry: 300\ndata: \n\n")
			mu.Lock()
			closedAt = time.Now()
			mu.Unlock()
			return
		}
		mu.Lock()
		resumedAt = time.Now()
		mu.Unlock()
		send := sse(w)
		send("id: event-2\nretry: 300\ndata: \n\n")
		send("event: message\nid: event-3\ndata: " + result([]byte("2"), `{"content":[{"type":"text","text":"done"}]}`) + "\n\n")
		<-r.Context().Done() // the channel leaves once it has its response
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.initialize()
	o.call(2, "tools/call", `{"name":"test_reconnection"}`, mcp.ProtocolVersion20251125)
	if m := o.message("2"); m.Stream != "2" || !strings.Contains(string(m.Result), "done") {
		t.Fatalf("the response %+v", m)
	}
	get := srv.await(t, "the resuming GET", func(r seenRequest) bool { return r.Method == http.MethodGet })
	if id := get.Header.Get("Last-Event-ID"); id != "event-1" {
		t.Errorf("Last-Event-ID %q, want event-1", id)
	}
	if s, a := get.Header.Get("Mcp-Session-Id"), get.Header.Get("Accept"); s != "s-1" || a != "text/event-stream" {
		t.Errorf("the GET carried session %q, Accept %q", s, a)
	}
	mu.Lock()
	waited := resumedAt.Sub(closedAt)
	mu.Unlock()
	if waited < retry { // a floor the server set, not a speed: it cannot flake
		t.Errorf("the channel resumed %v after the stream closed; the server asked it to wait %v", waited, retry)
	}
	for _, in := range o.all() {
		if len(in.Failed) > 0 || len(in.Errors) > 0 {
			t.Fatalf("trouble:\n%s", o.dump())
		}
	}
}

// A stream that ends before the response without an event id cannot be
// resumed: the request fails saying so. One that keeps being resumed
// without a new event is given up after MaxResumes.
func TestHTTPStreamEndedBeforeItsResponse(t *testing.T) {
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch {
		case r.Method == http.MethodGet:
			sse(w)(": nothing new\n\n")
		case strings.Contains(string(body), "primed"):
			sse(w)("id: 7\nretry: 10\ndata: \n\n")
		default:
			sse(w)(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n\n")
		}
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL, MaxResumes: 2})
	o.initialize()
	o.call(2, "tools/call", `{"name":"plain"}`, mcp.ProtocolVersion20251125)
	o.call(3, "tools/call", `{"name":"primed"}`, mcp.ProtocolVersion20251125)
	if got, want := o.failure("2").Error(), "the server at "+srv.URL+" ended the event stream before the response to the request"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	want := "the server at " + srv.URL + " ended the event stream before the response to the request; it was resumed 2 times in a row without a new event, and run-mcp gave up"
	if got := o.failure("3").Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	gets := 0
	for _, r := range srv.requests() {
		if r.Method == http.MethodGet {
			gets++
		}
	}
	if gets != 2 {
		t.Errorf("%d resumes, want 2", gets)
	}
}

// A 2026-07-28 stream is never resumed (that revision has no resumption).
func TestHTTPModernStreamIsNotResumed(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		sse(w)("id: 1\nretry: 10\ndata: \n\n")
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "tools/call", `{"name":"x"}`, mcp.ProtocolVersion20260728)
	if err := o.failure("1"); !strings.Contains(err.Error(), "ended the event stream before the response") {
		t.Fatalf("got %v", err)
	}
	for _, r := range srv.requests() {
		if r.Method != http.MethodPost {
			t.Errorf("a modern channel sent %s", r.Method)
		}
	}
}

// The standalone GET stream: its messages have no request's stream; when
// the server ends it, it is reopened from its last event id.
func TestHTTPListenOnTheStandaloneStream(t *testing.T) {
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method != http.MethodGet {
			writeJSON(w, result(parseRPC(body).ID, `{}`))
			return
		}
		send := sse(w)
		if r.Header.Get("Last-Event-ID") == "" {
			send("retry: 10\nid: a\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			return
		}
		send("id: b\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"roots/list\"}\n\n")
		<-r.Context().Done()
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.initialize()
	o.ch.Listen()
	o.ch.Listen() // once is enough
	if m := o.notification("notifications/tools/list_changed"); m.Stream != "" {
		t.Errorf("a message of the standalone stream has stream %q", m.Stream)
	}
	if m := o.message("9"); !m.IsRequest() || m.Stream != "" {
		t.Errorf("the server's request %+v", m)
	}
	var ids []string
	for _, r := range srv.requests() {
		if r.Method == http.MethodGet {
			ids = append(ids, r.Header.Get("Last-Event-ID")+"/"+r.Header.Get("Mcp-Session-Id"))
		}
	}
	if strings.Join(ids, " ") != "/s-1 a/s-1" {
		t.Errorf("GETs with Last-Event-ID/session %q", ids)
	}
}

// A server that offers no standalone stream (405) is fine: nothing is said.
func TestHTTPListenToAServerWithoutOne(t *testing.T) {
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, result(parseRPC(body).ID, `{}`))
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.initialize()
	o.ch.Listen()
	srv.await(t, "the GET", func(r seenRequest) bool { return r.Method == http.MethodGet })
	o.call(2, "ping", `{}`, mcp.ProtocolVersion20251125)
	o.message("2")
	o.ch.Close()
	if in := o.end(); in.Err != nil || len(in.Errors) > 0 {
		t.Fatalf("closed with %v %v", in.Err, in.Errors)
	}
	for _, in := range o.all() {
		if len(in.Errors) > 0 || len(in.Failed) > 0 {
			t.Fatalf("a server without a GET stream was reported:\n%s", o.dump())
		}
	}
}

// Close while a call's stream and the standalone stream are open ends the
// session, ends both streams, and leaves no goroutine behind; the last
// Inbound says the channel closed, and a Send after it is refused.
func TestHTTPCloseWithStreamsOpen(t *testing.T) {
	before := goleak.IgnoreCurrent()
	deleted := make(chan struct{})
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		sse(w)(": open\n\n")
		<-r.Context().Done()
	})
	srv.Config.Handler = wrapDelete(srv.Config.Handler, deleted)
	sink := make(chan Inbound)
	ch, err := NewHTTP(HTTPOptions{URL: srv.URL}, sink)
	if err != nil {
		t.Fatal(err)
	}
	owner := &httpOwner{t: t, ch: ch, more: make(chan struct{}, 1)}
	ownerDone := make(chan struct{})
	go owner.read(sink, ownerDone)
	owner.initialize()
	owner.call(2, "tools/call", `{"name":"forever"}`, mcp.ProtocolVersion20251125)
	ch.Listen()
	srv.await(t, "the call and the GET", func(seenRequest) bool {
		n := 0
		for _, r := range srv.requests() {
			if r.Method == http.MethodGet || strings.Contains(r.Body, "forever") {
				n++
			}
		}
		return n == 2
	})
	closed := make(chan struct{})
	go func() {
		_ = ch.Close()
		close(closed)
	}()
	waitClosed(t, "Close to return", closed)
	waitClosed(t, "the DELETE", deleted)
	waitClosed(t, "Done", ch.Done())
	waitClosed(t, "the owner's last Inbound", ownerDone)
	if in := owner.end(); in.Err != nil {
		t.Errorf("closed with %v", in.Err)
	}
	for _, in := range owner.all() {
		if len(in.Failed) > 0 || len(in.Errors) > 0 {
			t.Errorf("Close reported trouble:\n%s", owner.dump())
		}
	}
	if err := ch.Send(Outbound{Msg: []byte(`{}`), Key: "3"}); err == nil || !strings.Contains(err.Error(), "is closed") {
		t.Errorf("Send after Close: %v", err)
	}
	srv.Close()
	goleak.VerifyNone(t, before)
}

func wrapDelete(next http.Handler, deleted chan struct{}) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		if r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") == "s-1" {
			once.Do(func() { close(deleted) })
		}
	})
}
