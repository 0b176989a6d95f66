package wire

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// Credentials a user configured for a target, and one a RoundTripper hook
// (OAuth, later) adds: none may reach another origin.
func redirectSecrets() map[string]string {
	return map[string]string{"Authorization": "Bearer sekrit-token", "X-Api-Key": "key-value-123"}
}

const hookSecret = "hook-secret-456"

// hook is a RoundTripper that adds a credential, as OAuth will.
type hook struct{ next *http.Transport }

func (h hook) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Hook-Token", hookSecret)
	return h.next.RoundTrip(r)
}

func (h hook) CloseIdleConnections() { h.next.CloseIdleConnections() }

// capture answers every JSON-RPC request with an empty result and keeps
// what it got.
func capture(t *testing.T) *testServer {
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		writeJSON(w, result(parseRPC(body).ID, `{"where":"capture"}`))
	})
}

// redirecting answers every request on /mcp with status to target(r).
func redirecting(t *testing.T, status int, target func(r *http.Request) string) *testServer {
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.URL.Path != "/mcp" {
			writeJSON(w, result(parseRPC(body).ID, `{"where":"`+r.URL.Path+`"}`))
			return
		}
		w.Header().Set("Location", target(r))
		w.WriteHeader(status)
	})
}

// withheldEverywhere checks nothing the channel handed over, and nothing
// the capture server got, carries a credential's value, and that the
// origin got every credential.
func withheldEverywhere(t *testing.T, o *httpOwner, origin, elsewhere []seenRequest) {
	t.Helper()
	for _, v := range append(slices.Collect(maps.Values(redirectSecrets())), hookSecret) {
		if strings.Contains(o.text(), v) {
			t.Errorf("the owner was handed a credential: %s", o.text())
		}
		for _, r := range elsewhere {
			for name, vals := range r.Header {
				if slices.ContainsFunc(vals, func(s string) bool { return strings.Contains(s, v) }) {
					t.Errorf("%s %s on another origin got %s", r.Method, r.Path, name)
				}
			}
		}
	}
	for _, r := range origin {
		for name, v := range redirectSecrets() {
			if r.Header.Get(name) != v {
				t.Errorf("the origin got no %s", name)
			}
		}
		if r.Header.Get("X-Hook-Token") != hookSecret {
			t.Errorf("the origin got nothing from the RoundTripper hook")
		}
	}
}

func newRedirectOwner(t *testing.T, u string) *httpOwner {
	tr := DefaultHTTPTransport()
	t.Cleanup(tr.CloseIdleConnections)
	return newHTTPOwner(t, HTTPOptions{URL: u, Headers: redirectSecrets(), RoundTripper: hook{next: tr}})
}

// A 307 to another port keeps the method and body but not the
// credentials, and the redirect is reported with the names withheld.
func TestHTTPRedirectToAnotherPortWithholdsCredentials(t *testing.T) {
	other := capture(t)
	srv := redirecting(t, http.StatusTemporaryRedirect, func(*http.Request) string { return other.URL + "/elsewhere" })
	o := newRedirectOwner(t, srv.URL+"/mcp")
	o.call(1, "tools/list", `{}`, "2025-11-25")
	if m := o.message("1"); string(m.Result) != `{"where":"capture"}` {
		t.Fatalf("the answer %s", m.Result)
	}
	in := o.await("the redirect", func(in Inbound) bool { return len(in.Redirects) > 0 })
	want := Redirect{From: srv.URL + "/mcp", To: other.URL + "/elsewhere", Status: 307, Withheld: []string{"Authorization", "X-Api-Key"}}
	if r := in.Redirects[0]; r.From != want.From || r.To != want.To || r.Status != want.Status || !slices.Equal(r.Withheld, want.Withheld) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}
	got := other.requests()
	if len(got) != 1 || got[0].Method != http.MethodPost || !strings.Contains(got[0].Body, `"tools/list"`) ||
		got[0].Header.Get("Mcp-Protocol-Version") != "2025-11-25" {
		t.Fatalf("the other origin got %+v", got)
	}
	withheldEverywhere(t, o, srv.requests(), got)
}

// To another host on the same port (127.0.0.1 and localhost are two
// origins), a 308 keeps nothing either.
func TestHTTPRedirectToAnotherHostWithholdsCredentials(t *testing.T) {
	srv := redirecting(t, http.StatusPermanentRedirect, func(r *http.Request) string {
		u, _ := url.Parse("http://" + r.Host)
		return "http://localhost:" + u.Port() + "/moved"
	})
	o := newRedirectOwner(t, srv.URL+"/mcp")
	o.call(1, "tools/list", `{}`, "")
	if m := o.message("1"); string(m.Result) != `{"where":"/moved"}` {
		t.Fatalf("the answer %s", m.Result)
	}
	r := o.await("the redirect", func(in Inbound) bool { return len(in.Redirects) > 0 }).Redirects[0]
	if !strings.HasPrefix(r.To, "http://localhost:") || r.Status != 308 || !slices.Equal(r.Withheld, []string{"Authorization", "X-Api-Key"}) {
		t.Errorf("got %+v", r)
	}
	var origin, moved []seenRequest
	for _, req := range srv.requests() {
		if req.Path == "/moved" {
			moved = append(moved, req)
		} else {
			origin = append(origin, req)
		}
	}
	if len(moved) != 1 || len(origin) != 1 {
		t.Fatalf("got %+v", srv.requests())
	}
	withheldEverywhere(t, o, origin, moved)
}

// A redirect within the origin keeps the credentials, and is still said.
func TestHTTPRedirectWithinTheOriginKeepsCredentials(t *testing.T) {
	srv := redirecting(t, http.StatusTemporaryRedirect, func(*http.Request) string { return "/v2/mcp" })
	o := newRedirectOwner(t, srv.URL+"/mcp")
	o.call(1, "tools/list", `{}`, "")
	o.message("1")
	r := o.await("the redirect", func(in Inbound) bool { return len(in.Redirects) > 0 }).Redirects[0]
	if r.To != srv.URL+"/v2/mcp" || len(r.Withheld) != 0 {
		t.Errorf("got %+v", r)
	}
	withheldEverywhere(t, o, srv.requests(), nil)
}

// A 303 would turn the POST into a GET: the request fails in words; a
// loop of redirects is given up.
func TestHTTPRedirectsThatCannotBeFollowed(t *testing.T) {
	see := redirecting(t, http.StatusSeeOther, func(*http.Request) string { return "/other" })
	loop := redirecting(t, http.StatusFound, func(*http.Request) string { return "/mcp" })
	o := newHTTPOwner(t, HTTPOptions{URL: see.URL + "/mcp"})
	o.call(1, "tools/list", `{}`, "")
	want := "the server at " + see.URL + "/mcp answered 303 See Other to " + see.URL + "/other, which would turn the POST into a GET; an MCP endpoint that moved answers 307 or 308"
	if got := o.failure("1").Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	o2 := newHTTPOwner(t, HTTPOptions{URL: loop.URL + "/mcp"})
	o2.call(1, "tools/list", `{}`, "")
	if got := o2.failure("1").Error(); !strings.Contains(got, "redirected the request 11 times") {
		t.Errorf("got %q", got)
	}
}
