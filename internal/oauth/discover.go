package oauth

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// resourceMetadata is a protected-resource metadata document (RFC 9728 §2).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// serverMetadata is an authorization server's metadata (RFC 8414 §2), the
// fields run-mcp reads.
type serverMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	// CodeChallengeMethodsSupported is nil when the document leaves it out:
	// then the server does not support PKCE, and run-mcp refuses it.
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

// discovery is what the server and its authorization server said about
// where and how to authorize.
type discovery struct {
	prm    *resourceMetadata // nil: none found (the 2025-03-26 rules apply)
	prmURL string
	// resource is the resource indicator of the authorization and token
	// requests: the metadata's resource, else the server's URL.
	resource string
	issuer   string
	as       *serverMetadata // nil: none found (the 2025-03-26 default endpoints)
	asURL    string
}

// discover finds the protected-resource metadata and the authorization
// server's, as the specification orders them, checking that the metadata
// is about this server and that the authorization server's document names
// the issuer it was looked up for.
func (c *Client) discover(ctx context.Context, t *trail, ch Challenge) (*discovery, error) {
	server, err := url.Parse(c.server)
	if err != nil {
		return nil, t.failWith(StepResource, "the server URL cannot be parsed", "", err)
	}
	d := &discovery{resource: canonicalResource(server)}
	candidates := resourceMetadataURLs(server)
	if hinted := ch.bearer().resourceMetadata; hinted != "" {
		candidates = append([]string{hinted}, slices.DeleteFunc(candidates, func(u string) bool { return u == hinted })...)
	}
	for _, u := range candidates {
		var m resourceMetadata
		found, err := c.getJSON(ctx, t, u, &m)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !found {
			continue
		}
		if len(m.AuthorizationServers) == 0 {
			t.attempts[len(t.attempts)-1].Note = "it lists no authorization_servers"
			continue
		}
		if m.Resource != "" && !resourceBinds(m.Resource, c.server) {
			t.attempts[len(t.attempts)-1].Note = fmt.Sprintf("resource %q", m.Resource)
			return nil, t.fail(StepResource, fmt.Sprintf("the metadata at %s is about the resource %s, but run-mcp is reaching %s: a token issued for that resource is not one to send here (RFC 9728 §3.3, RFC 8707), so run-mcp stopped before asking for one",
				redact(u), m.Resource, c.server),
				fmt.Sprintf("set \"resource\" in the server's protected-resource metadata to %s (or to its origin, %s)", d.resource, origin(server)))
		}
		d.prm, d.prmURL = &m, u
		if m.Resource != "" {
			d.resource = m.Resource
		}
		break
	}
	if d.prm == nil && ch.bearer().resourceMetadata != "" {
		return nil, t.fail(StepResource, "the server's challenge names protected-resource metadata, but no usable document was found there or at the well-known URLs",
			"serve the protected-resource metadata (RFC 9728) at the resource_metadata URL the WWW-Authenticate header gives, with \"resource\" and \"authorization_servers\"")
	}
	if d.prm == nil {
		// The 2025-03-26 revision had no protected-resource metadata: the
		// server's origin is its own authorization server.
		return c.discoverLegacy(ctx, t, server, d)
	}
	for _, issuer := range d.prm.AuthorizationServers {
		as, asURL, err := c.serverMetadata(ctx, t, issuer)
		if err != nil {
			return nil, err
		}
		if as != nil {
			d.issuer, d.as, d.asURL = issuer, as, asURL
			return d, checkServer(t, d)
		}
	}
	return nil, t.fail(StepServer, fmt.Sprintf("no authorization-server metadata was found for %s, which the protected-resource metadata at %s names",
		strings.Join(d.prm.AuthorizationServers, ", "), redact(d.prmURL)),
		"serve the authorization server's metadata at one of the URLs above (RFC 8414 §3), or correct authorization_servers in the protected-resource metadata")
}

// discoverLegacy is discovery without protected-resource metadata: the
// authorization server is the server's origin, its metadata at the root,
// else the default endpoints /authorize, /token and /register.
func (c *Client) discoverLegacy(ctx context.Context, t *trail, server *url.URL, d *discovery) (*discovery, error) {
	base := origin(server)
	d.issuer = base
	for _, u := range serverMetadataURLs(base) {
		var m serverMetadata
		found, err := c.getJSON(ctx, t, u, &m)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if found {
			d.as, d.asURL = &m, u
			if m.Issuer != "" && m.Issuer != base {
				return nil, issuerMismatch(t, u, m.Issuer, base, "the server's origin (no protected-resource metadata was found, so the 2025-03-26 rule applies)")
			}
			return d, checkServer(t, d)
		}
	}
	// No metadata either: the 2025-03-26 default endpoints.
	d.as = &serverMetadata{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token",
		RegistrationEndpoint: base + "/register", CodeChallengeMethodsSupported: []string{"S256"}}
	t.add(Attempt{Method: "-", URL: base, Result: "no metadata found", Note: "using the 2025-03-26 default endpoints /authorize, /token and /register"})
	return d, nil
}

// serverMetadata fetches the metadata of issuer from the URLs the
// specification orders (nil, "" when none answered with a document).
func (c *Client) serverMetadata(ctx context.Context, t *trail, issuer string) (*serverMetadata, string, error) {
	for _, u := range serverMetadataURLs(issuer) {
		var m serverMetadata
		found, err := c.getJSON(ctx, t, u, &m)
		if err != nil && ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if !found {
			continue
		}
		if m.Issuer != issuer {
			return nil, "", issuerMismatch(t, u, m.Issuer, issuer, "the protected-resource metadata's authorization_servers")
		}
		return &m, u, nil
	}
	return nil, "", nil
}

// issuerMismatch is the refusal of a metadata document that names another
// issuer than the one it was looked up for (RFC 8414 §3.3).
func issuerMismatch(t *trail, u, got, want, from string) *Error {
	t.attempts[len(t.attempts)-1].Note = fmt.Sprintf("issuer %q", got)
	return t.fail(StepServer, fmt.Sprintf("the metadata at %s names the issuer %q, but it was looked up for the issuer %q (from %s); RFC 8414 §3.3 requires them to be identical, so run-mcp did not use its endpoints",
		redact(u), got, want, from),
		fmt.Sprintf("make \"issuer\" in the authorization server's metadata exactly %q, or list the issuer it names in authorization_servers", want))
}

// checkServer refuses metadata run-mcp cannot authorize with: no
// endpoints, or no PKCE S256.
func checkServer(t *trail, d *discovery) error {
	m := d.as
	for _, ep := range []struct{ name, value string }{{"authorization_endpoint", m.AuthorizationEndpoint}, {"token_endpoint", m.TokenEndpoint}} {
		u, err := url.Parse(ep.value)
		if ep.value == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return t.fail(StepServer, fmt.Sprintf("the metadata at %s has no usable %s (%q)", redact(d.asURL), ep.name, ep.value),
				fmt.Sprintf("give %s as an https:// URL in the authorization server's metadata", ep.name))
		}
	}
	switch {
	case m.CodeChallengeMethodsSupported == nil:
		return t.fail(StepServer, fmt.Sprintf("the metadata at %s does not list code_challenge_methods_supported, so the authorization server does not support PKCE, which MCP requires; run-mcp refuses to authorize without it", redact(d.asURL)),
			`add "code_challenge_methods_supported": ["S256"] to the authorization server's metadata (and support PKCE S256)`)
	case !slices.Contains(m.CodeChallengeMethodsSupported, "S256"):
		return t.fail(StepServer, fmt.Sprintf("the metadata at %s lists code_challenge_methods_supported %v, without S256, which MCP requires", redact(d.asURL), m.CodeChallengeMethodsSupported),
			`support PKCE S256 and list it: "code_challenge_methods_supported": ["S256"]`)
	}
	return nil
}

// resourceMetadataURLs are the well-known places of a server's
// protected-resource metadata (RFC 9728 §3.1), the path-based one first.
func resourceMetadataURLs(server *url.URL) []string {
	base := origin(server)
	var out []string
	if p := strings.Trim(server.EscapedPath(), "/"); p != "" {
		out = append(out, base+"/.well-known/oauth-protected-resource/"+p)
	}
	return append(out, base+"/.well-known/oauth-protected-resource")
}

// serverMetadataURLs are where an issuer's metadata is looked for, in the
// specification's order: OAuth (RFC 8414 path insertion), then OpenID
// discovery with the path inserted and appended.
func serverMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil
	}
	base := origin(u)
	p := strings.Trim(u.EscapedPath(), "/")
	if p == "" {
		return []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}
	}
	return []string{base + "/.well-known/oauth-authorization-server/" + p, base + "/.well-known/openid-configuration/" + p,
		base + "/" + p + "/.well-known/openid-configuration"}
}

// origin is scheme://host[:port], lower case.
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// canonicalResource is the server's URL as a resource indicator (RFC 8707
// §2): lower-case scheme and host, no fragment.
func canonicalResource(u *url.URL) string {
	c := *u
	c.Scheme, c.Host, c.Fragment, c.RawFragment, c.User = strings.ToLower(c.Scheme), strings.ToLower(c.Host), "", "", nil
	return c.String()
}

// resourceBinds says the metadata's resource is the server or a prefix of
// it: same scheme and host, and its path the server's path or a parent of
// it at a segment boundary (servers commonly name their origin as the
// resource and serve MCP at /mcp). A trailing slash is ignored.
func resourceBinds(resource, server string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil {
		return resource == server
	}
	if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) || r.RawQuery != "" && r.RawQuery != s.RawQuery {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}
