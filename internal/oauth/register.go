package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// How a client identity was obtained.
const (
	sourcePreRegistered = "pre-registered"
	sourceDocument      = "client ID metadata document"
	sourceDynamic       = "dynamic registration"
)

// identify is the client run-mcp authorizes as with d's authorization
// server, in the specification's order: a pre-registered client (given),
// the one registered before with this issuer, a client ID metadata
// document, dynamic registration. redirect is the loopback URI.
func (c *Client) identify(ctx context.Context, t *trail, d *discovery, stored *record, redirect string) (*clientRecord, error) {
	as := d.as
	if c.opts.ClientID != "" {
		return &clientRecord{ID: c.opts.ClientID, Secret: c.opts.ClientSecret, Method: secretMethod(c.opts.ClientSecret, as.TokenEndpointAuthMethodsSupported),
			Source: sourcePreRegistered, Issuer: d.issuer}, nil
	}
	if stored != nil && stored.Client != nil && stored.Client.Issuer == d.issuer && stored.Client.Source != sourcePreRegistered {
		if stored.Client.Source != sourceDocument || c.opts.ClientMetadataURL == stored.Client.ID {
			return stored.Client, nil
		}
	}
	if as.ClientIDMetadataDocumentSupported && c.opts.ClientMetadataURL != "" {
		return &clientRecord{ID: c.opts.ClientMetadataURL, Method: "none", Source: sourceDocument, Issuer: d.issuer}, nil
	}
	if as.RegistrationEndpoint != "" {
		return c.register(ctx, t, d, redirect)
	}
	fix := fmt.Sprintf("register a client with %s (redirect URI http://127.0.0.1/callback, any port) and give its ID: --client-id (and --client-secret) from a shell, oauth.client_id in connect_to_mcp", d.issuer)
	if as.ClientIDMetadataDocumentSupported {
		fix += ", or give the URL of a client ID metadata document (--client-metadata-url)"
	}
	return nil, t.fail(StepRegistration, fmt.Sprintf("the authorization server %s offers no dynamic client registration (its metadata has no registration_endpoint), and run-mcp was given no client ID for it", d.issuer), fix)
}

// secretMethod is how a client with secret authenticates at the token
// endpoint: none without a secret; else client_secret_basic unless the
// server lists client_secret_post alone (RFC 8414's default is basic).
func secretMethod(secret string, supported []string) string {
	switch {
	case secret == "":
		return "none"
	case len(supported) == 0 || slices.Contains(supported, "client_secret_basic"):
		return "client_secret_basic"
	case slices.Contains(supported, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// registration is an RFC 7591 request; run-mcp is a native application
// (SEP-837) that wants refresh tokens (SEP-2207).
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	ClientURI               string   `json:"client_uri,omitempty"`
}

type registered struct {
	ClientID                string `json:"client_id"`
	ClientSecret            string `json:"client_secret"`
	TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	Error                   string `json:"error"`
	ErrorDescription        string `json:"error_description"`
}

// register registers run-mcp with the authorization server (RFC 7591),
// asking for a public client when the server takes one.
func (c *Client) register(ctx context.Context, t *trail, d *discovery, redirect string) (*clientRecord, error) {
	supported := d.as.TokenEndpointAuthMethodsSupported
	method := "none"
	if len(supported) > 0 && !slices.Contains(supported, "none") {
		method = secretMethod("secret", supported)
	}
	body, _ := json.Marshal(registration{ClientName: "run-mcp", RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: method, ApplicationType: "native", ClientURI: "https://github.com/run-mcp/run-mcp"})
	a := Attempt{Method: http.MethodPost, URL: redact(d.as.RegistrationEndpoint)}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		a.Result = "not a URL run-mcp can request"
		t.add(a)
		return nil, t.fail(StepRegistration, "the registration_endpoint is not a URL", "give registration_endpoint as an https:// URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		a.Result = "could not be reached: " + unwrapURL(err).Error()
		t.add(a)
		return nil, t.failWith(StepRegistration, "the registration endpoint could not be reached", "", err)
	}
	defer resp.Body.Close()
	a.Result = statusText(resp)
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxDocument))
	var r registered
	decodeErr := json.Unmarshal(raw, &r)
	if resp.StatusCode/100 != 2 || decodeErr != nil || r.ClientID == "" {
		switch {
		case r.Error != "":
			a.Note = fmt.Sprintf("error %q: %s", r.Error, r.ErrorDescription)
		case resp.StatusCode/100 == 2:
			a.Note = "no client_id in the answer: " + excerpt(raw)
		default:
			a.Note = "body: " + excerpt(raw)
		}
		t.add(a)
		return nil, t.fail(StepRegistration, "the authorization server did not register run-mcp as a client",
			"answer a registration request (RFC 7591 §3) with 201 and a client_id; or register run-mcp by hand and pass --client-id")
	}
	a.Note = "registered client " + r.ClientID // a client ID is not secret
	t.add(a)
	if r.TokenEndpointAuthMethod != "" {
		method = r.TokenEndpointAuthMethod
	} else if r.ClientSecret != "" && method == "none" {
		method = secretMethod(r.ClientSecret, supported)
	}
	return &clientRecord{ID: r.ClientID, Secret: r.ClientSecret, Method: method, Source: sourceDynamic, Issuer: d.issuer, RedirectURI: redirect}, nil
}
