package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// authorize runs the authorization code grant with PKCE: the loopback
// listener, the client identity, the authorization URL through person, the
// redirect back (state and iss checked), and the code exchanged for a token,
// which is stored.
func (c *Client) authorize(ctx context.Context, t *trail, d *discovery, stored *record, scopes []string, person Person) error {
	state := randomString()
	prefer := ""
	if stored != nil && stored.Client != nil && stored.Client.Issuer == d.issuer {
		prefer = stored.Client.RedirectURI
	}
	lb, err := listenLoopback(prefer, state)
	if err != nil {
		return t.failWith(StepRedirect, err.Error(), "free a local port, or check that 127.0.0.1 is reachable", err)
	}
	client, err := c.identify(ctx, t, d, stored, lb.redirect)
	if err != nil {
		lb.close()
		return err
	}
	if client.RedirectURI != "" && client.RedirectURI != lb.redirect {
		// The port it was registered with is taken: register afresh rather
		// than meet a redirect_uri mismatch at the authorization server.
		if d.as.RegistrationEndpoint != "" && client.Source == sourceDynamic {
			if client, err = c.register(ctx, t, d, lb.redirect); err != nil {
				lb.close()
				return err
			}
		}
	}
	verifier := oauth2.GenerateVerifier()
	cfg := oauthConfig(d.as.AuthorizationEndpoint, d.as.TokenEndpoint, client, lb.redirect, scopes)
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource))
	}
	v := Visit{URL: cfg.AuthCodeURL(state, opts...), Server: c.server, Issuer: d.issuer, Redirect: lb.redirect, Wait: c.opts.Wait}
	t.add(Attempt{Method: "open", URL: redact(d.as.AuthorizationEndpoint), Result: "asked the person", Note: scopeNote(scopes) + ", client " + client.ID + " (" + client.Source + ")"})
	if err := person.Visit(ctx, v); err != nil {
		if errors.Is(err, ErrNobody) {
			return c.waitInBackground(lb, v, t, d, client, cfg, verifier, scopes)
		}
		lb.close()
		if errors.Is(err, ErrDeclined) {
			return t.failWith(StepAuthorization, "the person declined to open the authorization URL", "", err)
		}
		return t.failWith(StepAuthorization, "the authorization URL could not be opened: "+err.Error(), "", err)
	}
	wctx, cancel := context.WithTimeoutCause(ctx, c.opts.Wait, errWaitOver)
	defer cancel()
	cb, err := lb.wait(wctx)
	lb.close()
	if err != nil {
		if errors.Is(err, errWaitOver) {
			return t.failWith(StepRedirect, fmt.Sprintf("the browser did not come back to %s within %s", lb.redirect, c.opts.Wait),
				"finish the authorization in the browser sooner; if it did finish, the authorization server may not redirect to a 127.0.0.1 address with any port (RFC 8252 §7.3)", err)
		}
		return err
	}
	return c.finish(ctx, t, d, client, cfg, verifier, scopes, cb)
}

// waitInBackground keeps the listener open for the redirect nobody here
// could be asked to bring, and finishes the authorization when it comes.
func (c *Client) waitInBackground(lb *loopback, v Visit, t *trail, d *discovery, client *clientRecord, cfg *oauth2.Config, verifier string, scopes []string) error {
	until := time.Now().Add(c.opts.Wait)
	p := &pendingFlow{err: &PersonNeededError{Visit: v, Until: until}, arrived: lb.came, done: make(chan struct{}), until: until}
	c.pending = p
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(p.done)
		ctx, cancel := context.WithDeadline(c.ctx, until)
		defer cancel()
		cb, err := lb.wait(ctx)
		lb.close()
		if err == nil {
			_ = c.finish(ctx, t, d, client, cfg, verifier, scopes, cb)
		}
	}()
	return p.err
}

// finish checks the redirect and exchanges its code for a token.
func (c *Client) finish(ctx context.Context, t *trail, d *discovery, client *clientRecord, cfg *oauth2.Config, verifier string, scopes []string, cb callback) error {
	a := Attempt{Method: "redirect", URL: redact(cfg.RedirectURL), Result: "came back"}
	switch {
	case cb.err != "":
		a.Note = fmt.Sprintf("error %q: %s", cb.err, cb.description)
		t.add(a)
		return t.fail(StepAuthorization, fmt.Sprintf("the authorization server refused the authorization: %s%s", cb.err, suffix(": ", cb.description)),
			"see the authorization server's reason above (access_denied: the person refused; invalid_scope: a scope it does not grant; invalid_request: a parameter it does not take)")
	case cb.code == "":
		t.add(a)
		return t.fail(StepRedirect, "the redirect came back without a code", "redirect to the client's redirect_uri with code and state (RFC 6749 §4.1.2)")
	case cb.hasIss && cb.iss != d.issuer:
		a.Note = fmt.Sprintf("iss %q", cb.iss)
		t.add(a)
		return t.fail(StepRedirect, fmt.Sprintf("the redirect says it comes from the issuer %q, but the authorization was asked of %q; by RFC 9207 run-mcp compares them exactly and did not exchange the code (a mix-up, or an issuer that names itself differently)", cb.iss, d.issuer),
			fmt.Sprintf("send iss exactly as the metadata's issuer, %q", d.issuer))
	case !cb.hasIss && d.as.IssParameterSupported:
		a.Note = "no iss"
		t.add(a)
		return t.fail(StepRedirect, "the authorization server's metadata says authorization_response_iss_parameter_supported, but its redirect carried no iss; by RFC 9207 run-mcp did not exchange the code",
			fmt.Sprintf("add iss=%s to the redirect, or leave authorization_response_iss_parameter_supported out of the metadata", d.issuer))
	}
	t.add(a)
	opts := []oauth2.AuthCodeOption{oauth2.VerifierOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource))
	}
	tok, err := cfg.Exchange(c.withClient(ctx, ""), cb.code, opts...)
	if err != nil {
		t.add(tokenAttempt(d.as.TokenEndpoint, err))
		return t.failWith(StepToken, "the token endpoint did not exchange the code for a token", tokenFix(client, err), err)
	}
	t.add(Attempt{Method: http.MethodPost, URL: redact(d.as.TokenEndpoint), Result: "200 OK", Note: "a token" + grantedNote(tok)})
	rec := &record{Server: c.server, Resource: d.resource, Issuer: d.issuer, TokenEndpoint: d.as.TokenEndpoint, Client: client, Scopes: scopes, Token: tokenOf(tok, "")}
	if err := c.opts.Store.save(rec); err != nil {
		return t.failWith(StepStore, err.Error(), "", err)
	}
	c.mu.Lock()
	c.rec, c.loaded, c.storeErr = rec, true, nil
	c.mu.Unlock()
	return nil
}

// refresh trades the stored refresh token for a new access token, and
// stores it.
func (c *Client) refresh(ctx context.Context, t *trail, rec *record) (*record, error) {
	if rec.Client == nil || rec.TokenEndpoint == "" {
		return nil, t.fail(StepRefresh, "the stored token has no client or token endpoint to refresh it with", "")
	}
	cfg := oauthConfig("", rec.TokenEndpoint, rec.Client, "", nil)
	src := cfg.TokenSource(c.withClient(ctx, rec.Resource), &oauth2.Token{RefreshToken: rec.Token.RefreshToken})
	tok, err := src.Token()
	if err != nil {
		t.add(tokenAttempt(rec.TokenEndpoint, err))
		return nil, t.failWith(StepRefresh, "the token endpoint refused to refresh the token", "", err)
	}
	t.add(Attempt{Method: http.MethodPost, URL: redact(rec.TokenEndpoint), Result: "200 OK", Note: "refreshed"})
	next := *rec
	next.Token = tokenOf(tok, rec.Token.Scope)
	if err := c.opts.Store.save(&next); err != nil {
		return nil, t.failWith(StepStore, err.Error(), "", err)
	}
	return &next, nil
}

// oauthConfig is golang.org/x/oauth2's view of the endpoints and client.
func oauthConfig(authURL, tokenURL string, client *clientRecord, redirect string, scopes []string) *oauth2.Config {
	style := oauth2.AuthStyleInParams // none and client_secret_post
	if client.Method == "client_secret_basic" {
		style = oauth2.AuthStyleInHeader
	}
	secret := client.Secret
	if client.Method == "none" {
		secret = ""
	}
	return &oauth2.Config{ClientID: client.ID, ClientSecret: secret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL, AuthStyle: style}}
}

// withClient hands x/oauth2 run-mcp's HTTP client; resource, when set, is
// added to a refresh request, which x/oauth2 sends without it (RFC 8707
// asks for it on every token request).
func (c *Client) withClient(ctx context.Context, resource string) context.Context {
	hc := c.hc
	if resource != "" {
		hc = &http.Client{Transport: withResource{base: c.hc.Transport, resource: resource}, Timeout: c.hc.Timeout, CheckRedirect: getOnly}
	}
	return context.WithValue(ctx, oauth2.HTTPClient, hc)
}

func tokenOf(tok *oauth2.Token, scope string) *tokenRecord {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		scope = s
	}
	return &tokenRecord{AccessToken: tok.AccessToken, TokenType: tok.TokenType, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry, Scope: scope}
}

// tokenAttempt is the evidence of a refused token request: the status and
// the server's error, never what was sent.
func tokenAttempt(endpoint string, err error) Attempt {
	a := Attempt{Method: http.MethodPost, URL: redact(endpoint)}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.Response != nil {
			a.Result = statusText(re.Response)
		}
		switch {
		case re.ErrorCode != "":
			a.Note = fmt.Sprintf("error %q%s", re.ErrorCode, suffix(": ", re.ErrorDescription))
		default:
			a.Note = "body: " + excerpt(re.Body)
		}
		return a
	}
	a.Result = strings.TrimPrefix(unwrapURL(err).Error(), "oauth2: ")
	return a
}

// tokenFix says what to look at when the token endpoint refused.
func tokenFix(client *clientRecord, err error) string {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return ""
	}
	switch re.ErrorCode {
	case "invalid_client", "unauthorized_client":
		return fmt.Sprintf("run-mcp authenticated as client %s with %s (%s); check that the token endpoint takes that method (token_endpoint_auth_methods_supported) and that client", client.ID, client.Method, client.Source)
	case "invalid_grant":
		return "the code, its PKCE verifier or the redirect_uri did not match what the authorization endpoint issued; the code may also have expired or been used"
	case "invalid_target":
		return "the token endpoint refused the resource parameter (RFC 8707): it must accept the server's URL as a resource"
	}
	return ""
}

func scopeNote(scopes []string) string {
	if len(scopes) == 0 {
		return "no scope (the server's default)"
	}
	return "scope " + strings.Join(scopes, " ")
}

func grantedNote(tok *oauth2.Token) string {
	var parts []string
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		parts = append(parts, "scope "+s)
	}
	if tok.RefreshToken != "" {
		parts = append(parts, "a refresh token")
	}
	if !tok.Expiry.IsZero() {
		parts = append(parts, "expires in "+time.Until(tok.Expiry).Round(time.Second).String())
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// randomString is an unguessable state.
func randomString() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}
