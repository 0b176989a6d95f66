package wire

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A request answered with JSON: the response comes on the request's stream,
// and the POST carries what the transport requires.
func TestHTTPJSONResponse(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		writeJSON(w, result(parseRPC(body).ID, `{"tools":[]}`))
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL + "/mcp"})
	o.call(7, "tools/list", `{}`, "2025-06-18")
	m := o.message("7")
	if m.Stream != "7" || string(m.Result) != `{"tools":[]}` {
		t.Fatalf("got stream %q result %s", m.Stream, m.Result)
	}
	got := srv.requests()[0]
	if got.Method != http.MethodPost || got.Path != "/mcp" {
		t.Errorf("the server got %s %s", got.Method, got.Path)
	}
	for name, want := range map[string]string{
		"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
		"Mcp-Protocol-Version": "2025-06-18",
	} {
		if v := got.Header.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
	if got.Header.Get("Mcp-Method") != "" || got.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a legacy request without a session carried %v", got.Header)
	}
}

// An answer on an event stream: the server's notification and its request
// arrive with the stream of the call that carried them, then the response;
// the owner's answer to the server's request is posted and accepted.
func TestHTTPEventStreamCarriesNotificationRequestAndResponse(t *testing.T) {
	answered := make(chan string, 1)
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		m := parseRPC(body)
		if m.Method == "" { // the owner's answer to the server's request
			answered <- string(body)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		send := sse(w)
		send(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` + "\n\n")
		send("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\n" + `data: "method":"elicitation/create","params":{}}` + "\n\n")
		select {
		case <-answered:
		case <-r.Context().Done():
			return
		}
		send("data: " + result(m.ID, `{"content":[]}`) + "\n\n")
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "tools/call", `{"name":"ask"}`, "2025-11-25")
	note := o.notification("notifications/progress")
	ask := o.message(`"s1"`)
	if note.Stream != "1" || ask.Stream != "1" || !ask.IsRequest() || ask.Method != "elicitation/create" {
		t.Fatalf("notification on %q, request %+v", note.Stream, ask)
	}
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":"s1","result":{"action":"accept"}}`), Protocol: "2025-11-25"})
	resp := o.message("1")
	if resp.Stream != "1" || string(resp.Result) != `{"content":[]}` {
		t.Fatalf("response %+v", resp)
	}
	for _, in := range o.all() {
		if len(in.Errors) > 0 || len(in.Failed) > 0 {
			t.Fatalf("unexpected trouble:\n%s", o.dump())
		}
	}
}

// A notification is accepted with 202 and says nothing; one the server
// refuses is a transport error in words, with the server's own.
func TestHTTPNotificationsExpect202(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if parseRPC(body).Method == "notifications/initialized" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		http.Error(w, "no such notification here", http.StatusBadRequest)
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Method: "notifications/initialized"})
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/nonsense"}`), Method: "notifications/nonsense"})
	te := o.transportError("notifications/nonsense")
	want := "posting notifications/nonsense failed: the server answered 400 Bad Request at " + srv.URL + ": no such notification here"
	if te.Message != want {
		t.Fatalf("got  %q\nwant %q", te.Message, want)
	}
	if strings.Contains(o.text(), "notifications/initialized") {
		t.Errorf("an accepted notification was reported:\n%s", o.dump())
	}
}

// The server's answers reach it in the order they were sent: a request
// after a notification waits until the server took the notification.
func TestHTTPNotificationGoesBeforeTheRequestAfterIt(t *testing.T) {
	release := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		m := parseRPC(body)
		if m.ID == nil {
			<-release
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, result(m.ID, `{}`))
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Method: "notifications/initialized"})
	o.call(2, "tools/list", `{}`, "")
	srv.await(t, "the notification", func(r seenRequest) bool { return strings.Contains(r.Body, "initialized") })
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("the request went out before the server took the notification: %+v", srv.requests())
	}
	close(release)
	o.message("2")
}

// The session id the initialize response gives is sent with every later
// request, and Close ends the session with a DELETE.
func TestHTTPSessionIsKeptAndDeletedOnClose(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch m := parseRPC(body); {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "session-42")
			writeJSON(w, result(m.ID, `{"protocolVersion":"2025-11-25"}`))
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			writeJSON(w, result(m.ID, `{}`))
		}
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "initialize", `{}`, "")
	o.message("1")
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Method: "notifications/initialized", Protocol: "2025-11-25"})
	o.call(2, "tools/list", `{}`, "2025-11-25")
	o.message("2")
	if err := o.ch.Close(); err != nil {
		t.Fatal(err)
	}
	o.end()
	got := srv.requests()
	if s := got[0].Header.Get("Mcp-Session-Id"); s != "" {
		t.Errorf("initialize carried session %q", s)
	}
	for _, r := range got[1:] {
		if s := r.Header.Get("Mcp-Session-Id"); s != "session-42" {
			t.Errorf("%s %s carried session %q", r.Method, r.Body, s)
		}
	}
	if last := got[len(got)-1]; last.Method != http.MethodDelete || last.Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Errorf("the last request was %s with %v, not the session's DELETE", last.Method, last.Header)
	}
}

// A 404 to a request in a session means the session expired: the request
// fails saying so, and the next initialize goes without the old id.
func TestHTTPSessionExpiry(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		m := parseRPC(body)
		switch {
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "gone-soon")
			writeJSON(w, result(m.ID, `{}`))
		case r.Header.Get("Mcp-Session-Id") != "":
			http.Error(w, "session not found", http.StatusNotFound)
		default:
			writeJSON(w, result(m.ID, `{}`))
		}
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "initialize", `{}`, "")
	o.message("1")
	o.call(2, "tools/list", `{}`, "2025-06-18")
	err := o.failure("2")
	want := "the session expired: the server answered 404 Not Found at " + srv.URL +
		" to a request in its session, so it no longer knows the session; a new initialize starts another: session not found"
	if err.Error() != want {
		t.Fatalf("got  %q\nwant %q", err, want)
	}
	var se *StatusError
	if !errors.As(err, &se) || !se.SessionExpired || se.Code != http.StatusNotFound {
		t.Fatalf("not a session expiry: %#v", err)
	}
	o.call(3, "initialize", `{}`, "")
	o.message("3")
	if s := srv.requests()[2].Header.Get("Mcp-Session-Id"); s != "" {
		t.Errorf("the new initialize carried the expired session %q", s)
	}
}

// A request of the 2026-07-28 revision carries the standard headers and no
// session id, and there is no GET stream in that revision.
func TestHTTPModernRequestHeaders(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			http.Error(w, "no GET here", http.StatusMethodNotAllowed)
			return
		}
		m := parseRPC(body)
		w.Header().Set("Mcp-Session-Id", "legacy-session")
		writeJSON(w, result(m.ID, `{}`))
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "initialize", `{}`, "") // a legacy session first: its id must not leak into the modern requests
	o.message("1")
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"échos"}}`),
		Key: "2", Method: "tools/call", Name: "échos", Protocol: mcp.ProtocolVersion20260728})
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a"}}`),
		Key: "3", Protocol: mcp.ProtocolVersion20260728})
	o.message("2")
	o.message("3")
	o.ch.Listen()
	var call, read seenRequest
	for _, r := range srv.requests() {
		switch parseRPC([]byte(r.Body)).Method {
		case "tools/call":
			call = r
		case "resources/read":
			read = r
		}
	}
	if call.Header.Get("Mcp-Method") != "tools/call" || call.Header.Get("Mcp-Name") != "=?base64?w6ljaG9z?=" ||
		call.Header.Get("Mcp-Protocol-Version") != mcp.ProtocolVersion20260728 {
		t.Errorf("tools/call headers: %v", call.Header)
	}
	if read.Header.Get("Mcp-Method") != "resources/read" || read.Header.Get("Mcp-Name") != "file:///a" {
		t.Errorf("resources/read headers (from the message itself): %v", read.Header)
	}
	for _, r := range []seenRequest{call, read} {
		if s := r.Header.Get("Mcp-Session-Id"); s != "" {
			t.Errorf("a modern request carried session %q", s)
		}
	}
	o.ch.Close()
	o.end()
	for _, r := range srv.requests() {
		if r.Method != http.MethodPost {
			t.Errorf("a modern channel sent %s", r.Method)
		}
	}
}

// A server that cannot be reached fails the request in words.
func TestHTTPConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	o := newHTTPOwner(t, HTTPOptions{URL: url})
	o.call(1, "initialize", `{}`, "")
	err = o.failure("1")
	if msg := err.Error(); !strings.HasPrefix(msg, "could not reach the server at "+url+": ") || !strings.Contains(msg, "connection refused") {
		t.Fatalf("got %q", msg)
	}
	if strings.Contains(err.Error(), "Post ") || strings.Contains(err.Error(), "*") {
		t.Errorf("the error repeats Go's request form: %q", err)
	}
}

// An error status fails the request with the start of the server's words;
// an answer that is not JSON-RPC is a transport error, and the request,
// left without a response, fails.
func TestHTTPErrorStatusAndNoise(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch parseRPC(body).Method {
		case "tools/list":
			http.Error(w, "<html><body>Teapot   trouble\n\n here</body></html>", http.StatusTeapot)
		case "prompts/list":
			writeJSON(w, "Internal error, sorry")
		default:
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "hello")
		}
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL + "/mcp"})
	o.call(1, "tools/list", `{}`, "")
	o.call(2, "prompts/list", `{}`, "")
	o.call(3, "resources/list", `{}`, "")
	if got, want := o.failure("1").Error(), "the server answered 418 I'm a teapot at "+srv.URL+"/mcp: <html><body>Teapot trouble here</body></html>"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	te := o.transportError("Internal error")
	if want := "the answer from " + srv.URL + "/mcp was text that is not JSON"; !strings.HasPrefix(te.Message, want) {
		t.Errorf("got %q, want it to start %q", te.Message, want)
	}
	if got := o.failure("2").Error(); !strings.Contains(got, "carried no response to the request: Internal error, sorry") {
		t.Errorf("got %q", got)
	}
	if got, want := o.failure("3").Error(), "the server answered 200 OK at "+srv.URL+"/mcp with text/plain, not a JSON body or an event stream: hello"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// Forget ends the request's stream, and nothing more is said about it.
func TestHTTPForgetEndsTheStream(t *testing.T) {
	gone := make(chan struct{})
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		sse(w)(": waiting\n\n")
		<-r.Context().Done()
		close(gone)
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "tools/call", `{"name":"slow"}`, "")
	srv.await(t, "the call", func(seenRequest) bool { return true })
	o.ch.Forget("1")
	waitClosed(t, "the server to see the client go", gone)
	o.ch.Close()
	if in := o.end(); in.Err != nil {
		t.Errorf("closed with %v", in.Err)
	}
	for _, in := range o.all() {
		if len(in.Failed) > 0 {
			t.Errorf("a forgotten request was reported: %v", in.Failed)
		}
	}
}

// NewHTTP refuses what it could never send, in words that quote no header
// value and no password.
func TestHTTPNewRefusesWhatItCannotSend(t *testing.T) {
	sink := make(chan Inbound)
	for _, c := range []struct {
		opts HTTPOptions
		want string
	}{
		{HTTPOptions{URL: "ftp://host/mcp"}, "the server URL ftp://host/mcp is not an http:// or https:// URL with a host"},
		{HTTPOptions{URL: "http://user:pa55word@host:port/mcp"}, "the server URL cannot be parsed: invalid port \":port\" after host"},
		{HTTPOptions{URL: "http:///mcp"}, "the server URL http:///mcp is not an http:// or https:// URL with a host"},
		{HTTPOptions{URL: "http://h/", Headers: map[string]string{"X-Key": "line\r\nbreak"}}, "the value of header X-Key has a line break or a NUL, which HTTP cannot carry"},
		{HTTPOptions{URL: "http://h/", Headers: map[string]string{"Bad Name": "v"}}, `the header name "Bad Name" is not one HTTP allows`},
	} {
		ch, err := NewHTTP(c.opts, sink)
		if ch != nil || err == nil || err.Error() != c.want {
			t.Errorf("%+v: got %v\nwant %s", c.opts, err, c.want)
		}
	}
}

// A server that never answers the DELETE does not hold Close beyond its
// CloseTimeout.
func TestHTTPCloseDoesNotWaitForAHungDelete(t *testing.T) {
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		writeJSON(w, result(parseRPC(body).ID, `{}`))
	})
	srv.Config.Handler = hangOnDelete(srv.Config.Handler)
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL, CloseTimeout: 100 * time.Millisecond})
	o.initialize()
	closed := make(chan struct{})
	go func() {
		_ = o.ch.Close()
		close(closed)
	}()
	waitClosed(t, "Close to return", closed)
	if in := o.end(); in.Err != nil {
		t.Errorf("closed with %v", in.Err)
	}
	srv.await(t, "the DELETE", func(r seenRequest) bool { return r.Method == http.MethodDelete })
}

func hangOnDelete(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			next.ServeHTTP(&discardWriter{w.Header()}, r) // logged, not answered
			<-r.Context().Done()
			return
		}
		next.ServeHTTP(w, r)
	})
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// Events that carry no JSON-RPC message are transport errors quoting them;
// the stream goes on to the response.
func TestHTTPEventsThatAreNotJSONRPC(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		send := sse(w)
		send("data: hello there\n\n")
		send("event: ping\ndata: {}\n\n")
		send(`data: {"jsonrpc":"1.0","id":1,"result":{}}` + "\n\n")
		send("data: " + result(parseRPC(body).ID, `{}`) + "\n\n")
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "tools/list", `{}`, "")
	o.message("1")
	at := "an event on the stream from " + srv.URL
	for _, want := range []string{
		at + " was text that is not JSON: hello there",
		at + ` was an event of type "ping", which carries no JSON-RPC message: {}`,
		at + ` was a message without "jsonrpc": "2.0": {"jsonrpc":"1.0","id":1,"result":{}}`,
	} {
		if te := o.transportError(want); te.Message != want || te.Time.IsZero() {
			t.Errorf("got %+v", te)
		}
	}
}
