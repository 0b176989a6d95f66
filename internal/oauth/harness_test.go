package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// world is an MCP server's protected-resource metadata and an
// authorization server that grants at once, on two httptest servers, with
// knobs for what they get wrong.
type world struct {
	t      *testing.T
	rs, as *httptest.Server

	mu sync.Mutex
	// Knobs.
	issuer      string   // metadata issuer ("": the AS's URL)
	pkce        []string // code_challenge_methods_supported (nil: left out)
	noPKCEField bool
	resource    string // the PRM's resource ("": the MCP URL)
	ttl         int    // expires_in
	// What happened.
	authorizations []url.Values
	tokenRequests  []url.Values
	challenges     map[string]string
	issued         map[string]bool
}

func newWorld(t *testing.T) *world {
	w := &world{t: t, pkce: []string{"S256"}, ttl: 3600, challenges: map[string]string{}, issued: map[string]bool{}}
	w.as = httptest.NewServer(http.HandlerFunc(w.serveAS))
	w.rs = httptest.NewServer(http.HandlerFunc(w.serveRS))
	t.Cleanup(func() { w.rs.Close(); w.as.Close() })
	return w
}

func (w *world) mcpURL() string { return w.rs.URL + "/mcp" }

func (w *world) serveRS(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp":
		res := w.resource
		if res == "" {
			res = w.mcpURL()
		}
		writeJSONTest(rw, map[string]any{"resource": res, "authorization_servers": []string{w.as.URL}, "scopes_supported": []string{"read"}})
	case "/mcp":
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !w.issued[tok] {
			rw.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="read"`, w.rs.URL))
			rw.WriteHeader(http.StatusUnauthorized)
			return
		}
		rw.WriteHeader(http.StatusOK)
	default:
		http.NotFound(rw, r)
	}
}

func (w *world) serveAS(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		iss := w.issuer
		if iss == "" {
			iss = w.as.URL
		}
		m := map[string]any{"issuer": iss, "authorization_endpoint": w.as.URL + "/authorize", "token_endpoint": w.as.URL + "/token",
			"registration_endpoint": w.as.URL + "/register", "token_endpoint_auth_methods_supported": []string{"none"}}
		if !w.noPKCEField {
			m["code_challenge_methods_supported"] = w.pkce
		}
		writeJSONTest(rw, m)
	case "/register":
		rw.WriteHeader(http.StatusCreated)
		writeJSONTest(rw, map[string]any{"client_id": "client-1"})
	case "/authorize":
		q := r.URL.Query()
		w.authorizations = append(w.authorizations, q)
		code := fmt.Sprintf("code-%d", len(w.authorizations))
		w.challenges[code] = q.Get("code_challenge")
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := back.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		back.RawQuery = v.Encode()
		http.Redirect(rw, r, back.String(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		w.tokenRequests = append(w.tokenRequests, r.PostForm)
		if r.PostForm.Get("grant_type") == "authorization_code" {
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if base64.RawURLEncoding.EncodeToString(sum[:]) != w.challenges[r.PostForm.Get("code")] {
				rw.WriteHeader(http.StatusBadRequest)
				writeJSONTest(rw, map[string]any{"error": "invalid_grant", "error_description": "PKCE verifier mismatch"})
				return
			}
		}
		tok := fmt.Sprintf("token-%d", len(w.tokenRequests))
		w.issued[tok] = true
		writeJSONTest(rw, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": w.ttl, "refresh_token": "refresh-" + tok, "scope": r.PostForm.Get("scope")})
	default:
		http.NotFound(rw, r)
	}
}

func writeJSONTest(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(v)
}

// challenge is what the MCP endpoint answers without a token.
func (w *world) challenge() Challenge {
	resp, err := http.Post(w.mcpURL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return Challenge{Status: resp.StatusCode, Header: resp.Header.Values("WWW-Authenticate")}
}

// browser is a Person that opens the URL as a browser would: it follows
// the redirects to run-mcp's loopback.
type browser struct{ visits []Visit }

func (b *browser) Visit(ctx context.Context, v Visit) error {
	b.visits = append(b.visits, v)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// nobody is a Person nobody stands behind.
type nobody struct{ visit Visit }

func (n *nobody) Visit(_ context.Context, v Visit) error {
	n.visit = v
	return ErrNobody
}

func testClient(t *testing.T, w *world) *Client {
	c := New(w.mcpURL(), Options{Store: Store{Dir: t.TempDir() + "/oauth"}, Wait: 20 * time.Second})
	t.Cleanup(c.Close)
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
