package wire

import (
	"errors"
	"net/http"
	"slices"
	"testing"
)

// A refusal to authorize fails its request with the server's challenge,
// for the owner to authorize and send again, even when its body is a
// JSON-RPC error (which would otherwise answer the request); a 403 without
// a challenge is a plain refusal.
func TestHTTPRefusalToAuthorizeCarriesTheChallenge(t *testing.T) {
	challenge := `Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="read"`
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		switch parseRPC(body).Method {
		case "tools/list":
			w.Header().Set("WWW-Authenticate", challenge)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"unauthorized"}}`))
		default:
			w.WriteHeader(http.StatusForbidden)
		}
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL + "/mcp"})
	o.call(1, "tools/list", `{}`, "")
	var se *StatusError
	if err := o.failure("1"); !errors.As(err, &se) || se.Code != 401 || !slices.Equal(se.Authenticate, []string{challenge}) {
		t.Fatalf("got %v (%+v)", err, se)
	}
	o.call(2, "prompts/list", `{}`, "")
	if err := o.failure("2"); !errors.As(err, &se) || se.Code != 403 || se.Authenticate != nil {
		t.Fatalf("got %v (%+v)", err, se)
	}
}
