package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// DefaultWait is how long an authorization waits for the person to come
// back through the browser.
const DefaultWait = 5 * time.Minute

// Options configure how run-mcp authorizes to one server.
type Options struct {
	// ClientID and ClientSecret are a client registered with the server's
	// authorization server beforehand (a secret is optional).
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// describing run-mcp, used as its client ID where the authorization
	// server accepts such documents.
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	// Store keeps the tokens (zero: the default directory).
	Store Store `json:"-"`
	// Wait bounds the wait for the browser's redirect (0: DefaultWait).
	Wait time.Duration `json:"-"`
	// Transport carries the requests to the authorization server and the
	// metadata (nil: a default transport with dial and TLS timeouts).
	Transport http.RoundTripper `json:"-"`
}

// Visit is what a Person is asked to open.
type Visit struct {
	URL      string // the authorization URL
	Server   string // the MCP server it authorizes run-mcp for
	Issuer   string // the authorization server
	Redirect string // where the browser comes back (127.0.0.1)
	Wait     time.Duration
}

// Person is whoever can open the authorization URL: a browser on this
// machine, the agent's host. Visit returns once the person was asked (nil:
// run-mcp then waits for the redirect), or ErrNobody, ErrDeclined, or why
// asking failed.
type Person interface {
	Visit(ctx context.Context, v Visit) error
}

// Client is run-mcp's authorization to one MCP server: its token, and the
// flow that gets a new one. It is safe for concurrent use.
type Client struct {
	server string
	opts   Options
	hc     *http.Client

	mu       sync.Mutex
	loaded   bool
	rec      *record
	storeErr error
	// rejected is the access token the server last refused ("" none, or
	// a request sent without one): a token other than it is newer.
	rejected string

	// flow lets one authorization run at a time: a token of one
	// (capacity 1), so a caller that gives up (ctx) stops waiting for it.
	flow chan struct{}
	// pending is an authorization waiting in the background for a redirect
	// nobody here could be asked to bring.
	pending *pendingFlow

	ctx    context.Context // ends the background waits (Close)
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns the authorization of the MCP server at server (its URL).
func New(server string, opts Options) *Client {
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	rt := opts.Transport
	if rt == nil {
		rt = defaultTransport()
	}
	c := &Client{server: server, opts: opts, hc: &http.Client{Transport: rt, Timeout: 30 * time.Second, CheckRedirect: getOnly},
		flow: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c
}

// getOnly follows the redirects of a GET (metadata) and no other: a POST to
// the token or registration endpoint carries credentials.
func getOnly(req *http.Request, via []*http.Request) error {
	if req.Method != http.MethodGet || len(via) >= 5 {
		return http.ErrUseLastResponse
	}
	return nil
}

func defaultTransport() *http.Transport {
	return &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
		IdleConnTimeout:     30 * time.Second,
	}
}

// Server is the URL the client authorizes for.
func (c *Client) Server() string { return c.server }

// Close ends a background wait for a redirect and frees its listener.
func (c *Client) Close() {
	c.cancel()
	c.wg.Wait()
	c.hc.CloseIdleConnections()
}

// Transport is the RoundTripper of the requests to the server: each gets
// the current access token (refreshed first when it has expired), unless
// it carries an Authorization header of its own (a static credential the
// user gave). base carries them on (nil: http.DefaultTransport).
func (c *Client) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{c: c, base: base}
}

type transport struct {
	c    *Client
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	token := t.c.token(req.Context())
	if token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		t.c.refused(token)
	}
	return resp, err
}

// token is the access token to send: the stored one, refreshed silently
// when it has expired and can be. "" when there is none.
func (c *Client) token(ctx context.Context) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	if c.rec == nil || c.rec.Token == nil {
		return ""
	}
	if c.rec.Token.expired(time.Now()) && c.rec.Token.RefreshToken != "" {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		t := &trail{server: c.server}
		if rec, err := c.refresh(rctx, t, c.rec); err == nil {
			c.rec = rec
		}
	}
	return c.rec.Token.AccessToken
}

// loadLocked reads the stored record once; mu is held.
func (c *Client) loadLocked() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.rec, c.storeErr = c.opts.Store.load(c.server)
}

// refused notes that the server refused token.
func (c *Client) refused(token string) {
	c.mu.Lock()
	c.rejected = token
	c.mu.Unlock()
}

// newer says a token other than the one last refused is there to try.
func (c *Client) newer() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rec != nil && c.rec.Token != nil && c.rec.Token.AccessToken != c.rejected
}

// Authorized says a token is stored for the server.
func (c *Client) Authorized() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	return c.rec != nil && c.rec.Token != nil
}

// Authorize answers the server's refusal ch: it returns nil once a token
// worth sending the request again with is in place (a newer one another
// request got meanwhile, a refresh, or a new authorization through person),
// else an *Error naming the step that failed, or a *PersonNeededError when
// nobody here could open the authorization URL.
func (c *Client) Authorize(ctx context.Context, ch Challenge, person Person) error {
	select {
	case c.flow <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-c.flow }()
	if c.newer() {
		return nil // another request got a token since this one was refused
	}
	c.mu.Lock()
	c.loadLocked()
	stored, storeErr := c.rec, c.storeErr
	c.mu.Unlock()
	t := &trail{server: c.server}
	if storeErr != nil {
		return t.failWith(StepStore, storeErr.Error(), "", storeErr)
	}
	if p := c.pending; p != nil {
		select {
		case <-p.arrived:
			// The person came back: the code is being exchanged.
			select {
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			c.pending = nil
			if c.newer() {
				return nil
			}
		default:
			if p.live() {
				return p.err
			}
			c.pending = nil
		}
	}
	d, err := c.discover(ctx, t, ch)
	if err != nil {
		return err
	}
	step := ch.InsufficientScope()
	if !step && stored != nil && stored.Token != nil && stored.Token.RefreshToken != "" && stored.Issuer == d.issuer {
		rec, err := c.refresh(ctx, t, stored)
		if err == nil {
			c.mu.Lock()
			c.rec = rec
			c.mu.Unlock()
			return nil
		}
		// A refused refresh is evidence; a new authorization follows.
	}
	return c.authorize(ctx, t, d, stored, c.scopesFor(ch, d, stored), person)
}

// scopesFor chooses the scopes to ask for: the challenge's, else the
// resource's scopes_supported, else none (the server's default). A step-up
// asks for the challenge's scopes and every scope asked for before
// (SEP-2350). offline_access is added where the authorization server lists
// it, for a refresh token (SEP-2207).
func (c *Client) scopesFor(ch Challenge, d *discovery, stored *record) []string {
	var out []string
	add := func(s ...string) {
		for _, x := range s {
			if x != "" && !contains(out, x) {
				out = append(out, x)
			}
		}
	}
	if ch.InsufficientScope() && stored != nil && stored.Issuer == d.issuer {
		add(stored.Scopes...)
		if stored.Token != nil {
			add(fields(stored.Token.Scope)...)
		}
	}
	switch {
	case len(ch.scopes()) > 0:
		add(ch.scopes()...)
	case d.prm != nil && len(d.prm.ScopesSupported) > 0 && len(out) == 0:
		add(d.prm.ScopesSupported...)
	}
	if len(out) > 0 && d.as != nil && contains(d.as.ScopesSupported, "offline_access") {
		add("offline_access")
	}
	return out
}

// PersonNeededError is an authorization nobody here could be asked to open:
// it says where, and until when run-mcp waits for the redirect in the
// background (the process must live that long).
type PersonNeededError struct {
	Visit Visit
	Until time.Time
}

func (e *PersonNeededError) Error() string {
	return fmt.Sprintf("AUTHORIZATION_REQUIRED: the server at %s needs authorization (OAuth, with the authorization server %s), and nobody here could be asked to open the authorization URL. "+
		"Open it in a browser on this machine:\n  %s\nrun-mcp waits for the browser's redirect to %s until %s; then the token is stored and the next request uses it: call again",
		e.Visit.Server, e.Visit.Issuer, e.Visit.URL, e.Visit.Redirect, e.Until.Format("15:04:05"))
}

// pendingFlow is an authorization whose redirect is awaited in the
// background.
type pendingFlow struct {
	err     *PersonNeededError
	arrived chan struct{} // the redirect came
	done    chan struct{} // the wait is over, token or not
	until   time.Time
}

func (p *pendingFlow) live() bool {
	select {
	case <-p.done:
		return false
	default:
		return time.Now().Before(p.until)
	}
}

var errWaitOver = errors.New("the wait for the browser's redirect is over")
