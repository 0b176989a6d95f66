package oauth

import (
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestChallengesAreReadAsSent(t *testing.T) {
	ch := Challenge{Status: 403, Header: []string{
		`Basic realm="x", Bearer error="insufficient_scope", scope="read  write", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"`,
	}}
	b := ch.bearer()
	if !b.found || b.err != "insufficient_scope" || b.resourceMetadata != "https://h/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("bearer: %+v", b)
	}
	if got := ch.scopes(); !slices.Equal(got, []string{"read", "write"}) || !ch.InsufficientScope() || !ch.Asks() {
		t.Fatalf("scopes %v, insufficient %v", got, ch.InsufficientScope())
	}
	for _, h := range []string{`Bearer realm="a \"quoted\" realm", scope=tools`, `bearer SCOPE="tools"`, `Negotiate abc==, Bearer scope="tools"`} {
		if got := (Challenge{Status: 401, Header: []string{h}}).bearer().scope; got != "tools" {
			t.Errorf("%s: scope %q, want tools", h, got)
		}
	}
	if (Challenge{Status: 403, Header: []string{`Bearer error="invalid_token"`}}).Asks() {
		t.Error("a 403 that is not insufficient_scope is no step-up")
	}
}

func TestWellKnownURLsInTheSpecificationsOrder(t *testing.T) {
	got := serverMetadataURLs("https://auth.example.com/tenant1")
	want := []string{"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1", "https://auth.example.com/tenant1/.well-known/openid-configuration"}
	if !slices.Equal(got, want) {
		t.Errorf("with a path: %v", got)
	}
	if got := serverMetadataURLs("https://auth.example.com"); !slices.Equal(got, []string{"https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"}) {
		t.Errorf("without: %v", got)
	}
	w := newWorld(t)
	c := testClient(t, w)
	if got := resourceMetadataURLs(mustParse(t, c.server)); !slices.Equal(got, []string{w.rs.URL + "/.well-known/oauth-protected-resource/mcp", w.rs.URL + "/.well-known/oauth-protected-resource"}) {
		t.Errorf("resource metadata: %v", got)
	}
}

func TestAResourceBindsItsServerAndNoOther(t *testing.T) {
	for _, c := range []struct {
		resource string
		ok       bool
	}{{"https://h/mcp", true}, {"https://H/mcp/", true}, {"https://h", true}, {"https://h/", true},
		{"https://h/mc", false}, {"https://h/mcp/x", false}, {"https://evil.example.com/mcp", false}, {"http://h/mcp", false}} {
		if got := resourceBinds(c.resource, "https://h/mcp"); got != c.ok {
			t.Errorf("%s binds https://h/mcp: %v, want %v", c.resource, got, c.ok)
		}
	}
}

// The first authorization registers, sends the person to the
// authorization URL (PKCE S256, state, resource, the challenge's scope),
// takes the code on the loopback and keeps the token in an owner-only
// file; a second client finds it there and sends it.
func TestFirstAuthorizationIsKeptAndReused(t *testing.T) {
	w := newWorld(t)
	c := testClient(t, w)
	b := &browser{}
	if err := c.Authorize(ctxT(t), w.challenge(), b); err != nil {
		t.Fatal(err)
	}
	q := w.authorizations[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("state") == "" || q.Get("resource") != w.mcpURL() || q.Get("scope") != "read" || q.Get("client_id") != "client-1" {
		t.Errorf("authorization request: %v", q)
	}
	if !strings.HasPrefix(b.visits[0].Redirect, "http://127.0.0.1:") || b.visits[0].Issuer != w.as.URL {
		t.Errorf("visit: %+v", b.visits[0])
	}
	if got := w.tokenRequests[0]; got.Get("resource") != w.mcpURL() || got.Get("code_verifier") == "" {
		t.Errorf("token request: %v", got)
	}
	path, _ := c.opts.Store.Path(c.server)
	if runtime.GOOS != "windows" {
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("token file %s: %v %v", path, info, err)
		}
		if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
			t.Errorf("token directory mode %v", dir.Mode().Perm())
		}
	}
	again := New(c.server, c.opts)
	defer again.Close()
	resp, err := (&http.Client{Transport: again.Transport(nil)}).Post(w.mcpURL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the kept token was not sent: %s", resp.Status)
	}
}

// An expired token is refreshed before it is sent, with the resource it
// was issued for, and nobody is asked.
func TestAnExpiredTokenIsRefreshedSilently(t *testing.T) {
	w := newWorld(t)
	w.ttl = 1 // expired at once: tokens within 10 s of their end are refreshed
	c := testClient(t, w)
	if err := c.Authorize(ctxT(t), w.challenge(), &browser{}); err != nil {
		t.Fatal(err)
	}
	again := New(c.server, c.opts)
	defer again.Close()
	resp, err := (&http.Client{Transport: again.Transport(nil)}).Post(w.mcpURL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	last := w.tokenRequests[len(w.tokenRequests)-1]
	if resp.StatusCode != http.StatusOK || last.Get("grant_type") != "refresh_token" || last.Get("resource") != w.mcpURL() {
		t.Fatalf("status %s, last token request %v", resp.Status, last)
	}
	if len(w.authorizations) != 1 {
		t.Errorf("a refresh must not ask the person again: %d authorizations", len(w.authorizations))
	}
}

// A metadata document that names another issuer is refused at the
// authorization-server step, with each URL tried and what it said.
func TestAWrongIssuerIsRefusedWithTheEvidence(t *testing.T) {
	w := newWorld(t)
	w.issuer = "https://attacker.example"
	err := testClient(t, w).Authorize(ctxT(t), w.challenge(), &browser{})
	var oe *Error
	if !errors.As(err, &oe) || oe.Step != StepServer {
		t.Fatalf("got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"authorization-server metadata step", `names the issuer "https://attacker.example"`, w.as.URL + "/.well-known/oauth-authorization-server: 200 OK",
		"/.well-known/oauth-protected-resource/mcp: 200 OK", "fix: make \"issuer\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if len(w.authorizations) != 0 {
		t.Error("nothing may be asked of a server whose metadata was refused")
	}
}

func TestNoPKCENoAuthorization(t *testing.T) {
	w := newWorld(t)
	w.noPKCEField = true
	err := testClient(t, w).Authorize(ctxT(t), w.challenge(), &browser{})
	if err == nil || !strings.Contains(err.Error(), "code_challenge_methods_supported") || len(w.authorizations) != 0 {
		t.Fatalf("got %v", err)
	}
}

func TestAResourceMismatchStopsBeforeAnyAuthorization(t *testing.T) {
	w := newWorld(t)
	w.resource = "https://evil.example.com/mcp"
	err := testClient(t, w).Authorize(ctxT(t), w.challenge(), &browser{})
	var oe *Error
	if !errors.As(err, &oe) || oe.Step != StepResource || !strings.Contains(err.Error(), "https://evil.example.com/mcp") || len(w.authorizations) != 0 {
		t.Fatalf("got %v", err)
	}
}

// With nobody to ask, the error carries the URL, and the redirect is still
// awaited in the background: opening the URL later completes it.
func TestNobodyToAskLeavesTheURLAndWaits(t *testing.T) {
	w := newWorld(t)
	c := testClient(t, w)
	n := &nobody{}
	err := c.Authorize(ctxT(t), w.challenge(), n)
	var pe *PersonNeededError
	if !errors.As(err, &pe) || pe.Visit.URL == "" || !strings.Contains(err.Error(), pe.Visit.URL) {
		t.Fatalf("got %v", err)
	}
	if again := c.Authorize(ctxT(t), w.challenge(), n); again == nil || again.Error() != err.Error() {
		t.Errorf("a second refusal meanwhile must point at the same authorization: %v", again)
	}
	if err := (&browser{}).Visit(ctxT(t), pe.Visit); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !c.Authorized() {
		if time.Now().After(deadline) {
			t.Fatal("the background wait never stored the token")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStepUpAsksForTheUnion(t *testing.T) {
	d := &discovery{issuer: "https://as", as: &serverMetadata{ScopesSupported: []string{"offline_access"}}, prm: &resourceMetadata{ScopesSupported: []string{"x"}}}
	stored := &record{Issuer: "https://as", Scopes: []string{"read"}, Token: &tokenRecord{Scope: "read profile"}}
	got := (&Client{}).scopesFor(Challenge{Status: 403, Header: []string{`Bearer error="insufficient_scope", scope="write"`}}, d, stored)
	if !slices.Equal(got, []string{"read", "profile", "write", "offline_access"}) {
		t.Errorf("step-up scopes %v", got)
	}
	if got := (&Client{}).scopesFor(Challenge{Status: 401}, &discovery{as: &serverMetadata{}}, nil); len(got) != 0 {
		t.Errorf("nothing advertised: scope must be left out, got %v", got)
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
