package oauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
)

// Finding is one check of a server's side of the authorization, as
// validate reports it.
type Finding struct {
	Check    string    `json:"check"`
	Status   string    `json:"status"` // PASS, WARN, FAIL or SKIP
	Message  string    `json:"message"`
	Evidence []Attempt `json:"evidence,omitempty"`
}

// The statuses of a Finding.
const (
	Pass = "PASS"
	Warn = "WARN"
	Fail = "FAIL"
	Skip = "SKIP"
)

// probeBody is what the probes send: an initialize, the one request every
// revision's server takes first (a 2026-07-28 server refuses it after the
// authorization check, which is what is looked at).
const probeBody = `{"jsonrpc":"2.0","id":"run-mcp-validate","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"run-mcp validate","version":"0"}}}`

// Inspect checks the server's side of the authorization, as a strict
// client would meet it: that a request without a token is refused with a
// 401 whose challenge names the protected-resource metadata; that the
// metadata is reachable and about this server; that the authorization
// server's metadata names its issuer and offers PKCE S256 and a way to
// register; that scopes are advertised; that a token the server cannot
// have issued is refused, and a token kept for another resource of the same
// authorization server too (the audience check, RFC 8707). It sends no
// token of the user's to this server but one issued for another, and only
// in that check.
func Inspect(ctx context.Context, server string, opts Options) []Finding {
	c := New(server, opts)
	defer c.Close()
	var out []Finding
	t := &trail{server: server}
	resp, a, err := c.probe(ctx, "")
	t.add(a)
	if err != nil {
		return append(out, Finding{Check: "authorization_challenge", Status: Fail, Message: "the server could not be reached without a token: " + err.Error(), Evidence: t.attempts})
	}
	if resp.StatusCode != http.StatusUnauthorized {
		msg := fmt.Sprintf("the server answered a request without a token with %s: it does not ask for authorization, so the authorization checks do not apply", statusText(resp))
		if resp.StatusCode == http.StatusForbidden {
			return append(out, Finding{Check: "authorization_challenge", Status: Fail, Message: "the server answered a request without a token with 403; a missing token is 401 with WWW-Authenticate (RFC 6750 §3.1), or clients never start the authorization", Evidence: t.attempts})
		}
		return append(out, Finding{Check: "authorization_challenge", Status: Skip, Message: msg, Evidence: t.attempts})
	}
	ch := Challenge{Status: resp.StatusCode, Header: resp.Header.Values("WWW-Authenticate")}
	b := ch.bearer()
	switch {
	case !b.found:
		out = append(out, Finding{Check: "authorization_challenge", Status: Fail, Evidence: t.attempts,
			Message: "the 401 carries no WWW-Authenticate: Bearer challenge, so a client cannot tell how to authorize; send WWW-Authenticate: Bearer resource_metadata=\"…\" (RFC 9728 §5.1)"})
	case b.resourceMetadata == "":
		out = append(out, Finding{Check: "authorization_challenge", Status: Warn, Evidence: t.attempts,
			Message: "the 401's Bearer challenge names no resource_metadata; clients fall back to the well-known URLs, but the specification asks the server to name it (RFC 9728 §5.1)"})
	default:
		out = append(out, Finding{Check: "authorization_challenge", Status: Pass, Evidence: t.attempts,
			Message: fmt.Sprintf("401 with a Bearer challenge naming resource_metadata %s%s", b.resourceMetadata, suffix(", scope ", b.scope))})
	}
	t = &trail{server: server}
	d, err := c.discover(ctx, t, ch)
	var oe *Error
	if err != nil {
		if !errors.As(err, &oe) {
			return append(out, Finding{Check: "protected_resource_metadata", Status: Fail, Message: err.Error(), Evidence: t.attempts})
		}
		check := "authorization_server_metadata"
		if oe.Step == StepResource {
			check = "protected_resource_metadata"
		}
		return append(out, Finding{Check: check, Status: Fail, Message: oe.Reason + suffix(". Fix: ", oe.Fix), Evidence: oe.Evidence})
	}
	out = append(out, c.metadataFindings(d, t)...)
	return append(out, c.tokenFindings(ctx, d)...)
}

// metadataFindings judge what discovery found.
func (c *Client) metadataFindings(d *discovery, t *trail) []Finding {
	var out []Finding
	if d.prm == nil {
		out = append(out, Finding{Check: "protected_resource_metadata", Status: Fail, Evidence: t.attempts,
			Message: "no protected-resource metadata at the well-known URLs (RFC 9728); only clients of the 2025-03-26 revision, which fall back to the server's origin, can authorize. Serve it, naming the resource and its authorization_servers"})
	} else {
		msg := fmt.Sprintf("%s: resource %s, authorization server %s", redact(d.prmURL), d.resource, strings.Join(d.prm.AuthorizationServers, ", "))
		st := Pass
		if d.prm.Resource == "" {
			st, msg = Warn, msg+"; it has no \"resource\" (RFC 9728 §2 requires it), so clients cannot check that it is about this server"
		}
		out = append(out, Finding{Check: "protected_resource_metadata", Status: st, Message: msg})
	}
	as := d.as
	msg := fmt.Sprintf("%s: issuer %s, PKCE %s", redact(d.asURL), as.Issuer, strings.Join(as.CodeChallengeMethodsSupported, " "))
	if d.asURL == "" {
		msg = "no metadata; the 2025-03-26 default endpoints /authorize, /token and /register"
	}
	out = append(out, Finding{Check: "authorization_server_metadata", Status: Pass, Message: msg})
	switch {
	case as.RegistrationEndpoint != "" && as.ClientIDMetadataDocumentSupported:
		out = append(out, Finding{Check: "client_registration", Status: Pass, Message: "dynamic registration at " + redact(as.RegistrationEndpoint) + ", and client ID metadata documents"})
	case as.RegistrationEndpoint != "":
		out = append(out, Finding{Check: "client_registration", Status: Pass, Message: "dynamic registration at " + redact(as.RegistrationEndpoint)})
	case as.ClientIDMetadataDocumentSupported:
		out = append(out, Finding{Check: "client_registration", Status: Pass, Message: "client ID metadata documents (client_id_metadata_document_supported)"})
	default:
		out = append(out, Finding{Check: "client_registration", Status: Warn, Message: "the authorization server offers neither dynamic registration nor client ID metadata documents: every client must be registered by hand (--client-id)"})
	}
	switch {
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		out = append(out, Finding{Check: "scopes", Status: Pass, Message: "scopes_supported: " + strings.Join(d.prm.ScopesSupported, " ")})
	case len(as.ScopesSupported) > 0:
		out = append(out, Finding{Check: "scopes", Status: Warn, Message: "the protected-resource metadata advertises no scopes_supported (the authorization server lists " + strings.Join(as.ScopesSupported, " ") + "); clients then ask for none unless a challenge names some"})
	default:
		out = append(out, Finding{Check: "scopes", Status: Warn, Message: "no scopes advertised (scopes_supported) in either metadata; clients ask for none unless a challenge names some"})
	}
	return out
}

// tokenFindings check that the server refuses tokens that are not for it:
// one it cannot have issued, and one issued for another resource of the
// same authorization server, when run-mcp keeps one.
func (c *Client) tokenFindings(ctx context.Context, d *discovery) []Finding {
	var out []Finding
	resp, a, err := c.probe(ctx, "run-mcp-validate-not-a-token")
	switch {
	case err != nil:
		out = append(out, Finding{Check: "token_validation", Status: Fail, Message: "the probe with an invalid token failed: " + err.Error(), Evidence: []Attempt{a}})
	case resp.StatusCode == http.StatusUnauthorized:
		out = append(out, Finding{Check: "token_validation", Status: Pass, Message: "a made-up bearer token is refused with 401"})
	default:
		out = append(out, Finding{Check: "token_validation", Status: Fail, Evidence: []Attempt{a},
			Message: fmt.Sprintf("a made-up bearer token was answered %s, not 401: the server does not validate tokens", statusText(resp))})
	}
	other, otherResource := c.foreignToken(d)
	if other == "" {
		return append(out, Finding{Check: "token_audience", Status: Skip,
			Message: "run-mcp keeps no token issued by " + d.issuer + " for another resource to present; authorize another server of that authorization server (run-mcp login) to check that this one refuses its tokens"})
	}
	resp, a, err = c.probe(ctx, other)
	switch {
	case err != nil:
		return append(out, Finding{Check: "token_audience", Status: Fail, Message: "the probe failed: " + err.Error(), Evidence: []Attempt{a}})
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return append(out, Finding{Check: "token_audience", Status: Pass, Message: fmt.Sprintf("a token %s issued for %s is refused (%s)", d.issuer, otherResource, statusText(resp))})
	}
	return append(out, Finding{Check: "token_audience", Status: Fail, Evidence: []Attempt{a},
		Message: fmt.Sprintf("a token %s issued for another resource (%s) was accepted (%s): the server does not check that tokens were issued for it (their audience, RFC 8707), so any service of that authorization server can use its users' tokens here", d.issuer, otherResource, statusText(resp))})
}

// foreignToken is an access token kept for another server whose
// authorization server is d's, and that server's resource.
func (c *Client) foreignToken(d *discovery) (string, string) {
	path, err := c.opts.Store.Path(c.server)
	if err != nil {
		return "", ""
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.json"))
	for _, f := range files {
		if f == path {
			continue
		}
		fh, err := openPrivate(f)
		if err != nil {
			continue
		}
		raw, _ := io.ReadAll(io.LimitReader(fh, maxRecord))
		fh.Close()
		var r record
		if decodeRecord(raw, &r) != nil || r.Token == nil || r.Issuer != d.issuer || r.Resource == d.resource || Key(r.Server) == Key(c.server) {
			continue
		}
		return r.Token.AccessToken, r.Resource
	}
	return "", ""
}

// probe POSTs the probe to the server, with token as a bearer token ("":
// none), through the plain client (no stored token is added).
func (c *Client) probe(ctx context.Context, token string) (*http.Response, Attempt, error) {
	a := Attempt{Method: http.MethodPost, URL: redact(c.server)}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.server, bytes.NewReader([]byte(probeBody)))
	if err != nil {
		a.Result = "not a URL run-mcp can request"
		return nil, a, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
		a.Note = "with a bearer token"
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		a.Result = "could not be reached: " + unwrapURL(err).Error()
		return nil, a, unwrapURL(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	a.Result = statusText(resp)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.endSession(ctx, id)
	}
	return resp, a, nil
}

// endSession deletes a session a probe opened by being answered.
func (c *Client) endSession(ctx context.Context, id string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.server, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", id)
	if resp, err := c.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}
