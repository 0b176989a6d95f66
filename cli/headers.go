package cli

import (
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// Static credentials for an HTTP target: --header 'Name: value' (repeatable)
// and --bearer-env NAME (Authorization: Bearer <the variable's value>).
// Their values are secrets as --env's are: no message, record or log ever
// shows one, only the header's name.

// parseHeaders reads --header and --bearer-env into the headers to send.
// nil when neither was given.
func (g *globals) parseHeaders() (map[string]string, error) {
	if len(g.headers) == 0 && g.bearerEnv == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, h := range g.headers {
		name, value, err := parseHeaderToken(h)
		if err != nil {
			return nil, err
		}
		for k := range out {
			if strings.EqualFold(k, name) {
				return nil, exitf(ExitUsage, "--header %s is given twice; give each header once", name)
			}
		}
		out[name] = value
	}
	if g.bearerEnv != "" {
		if err := wire.CheckEnvKey(g.bearerEnv); err != nil {
			return nil, exitf(ExitUsage, "--bearer-env expects the name of an environment variable: %v", err)
		}
		token, ok := os.LookupEnv(g.bearerEnv)
		if !ok || strings.TrimSpace(token) == "" {
			return nil, exitf(ExitUsage, "--bearer-env %s: the variable is not set (or empty) in this shell; export it first, e.g. export %s=…", g.bearerEnv, g.bearerEnv)
		}
		for k := range out {
			if strings.EqualFold(k, "Authorization") {
				return nil, exitf(ExitUsage, "--bearer-env %s and --header Authorization both set the Authorization header; give one of them", g.bearerEnv)
			}
		}
		if strings.ContainsAny(token, "\r\n\x00") {
			return nil, exitf(ExitUsage, "--bearer-env %s: the variable's value has a line break or a NUL, which HTTP cannot carry (the value is not shown)", g.bearerEnv)
		}
		out["Authorization"] = "Bearer " + strings.TrimSpace(token)
	}
	return out, nil
}

// parseHeaderToken splits one --header value at its first colon, as curl's
// -H does. Its errors name the header at most, never what follows the
// colon: that is the secret the flag exists to carry. A word without a
// colon is not shown either: it is most likely a token whose name was
// forgotten.
func parseHeaderToken(h string) (name, value string, err error) {
	name, value, ok := strings.Cut(h, ":")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return "", "", exitf(ExitUsage, "--header expects 'Name: value', got a word with no ':' (not shown: it may be a secret); repeat --header once per header")
	case !validHeaderName(name):
		return "", "", exitf(ExitUsage, "--header expects 'Name: value': the part before the first ':' is not a header name HTTP allows (letters, digits and !#$%%&'*+-.^_`|~; not shown: it may be a secret)")
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", exitf(ExitUsage, "--header %s: the value has a line break or a NUL, which HTTP cannot carry (the value is not shown)", name)
	}
	return http.CanonicalHeaderKey(name), value, nil
}

// validHeaderName says name is an HTTP token (RFC 9110's tchar).
func validHeaderName(name string) bool { return wire.CheckHeaderName(name) == nil }

// headerKeys are the names of headers, sorted: what messages and records
// may show of them.
func headerKeys(h map[string]string) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stdioHeaders refuses --header for a server run-mcp starts rather than
// drop it: a process on stdio has no HTTP headers.
func stdioHeaders(keys []string) error {
	return exitf(ExitUsage, "--header and --bearer-env (%s) reach an HTTP target only: a server run-mcp starts talks over stdio, which has no headers. "+
		"Pass its credentials with --env KEY=VALUE instead", strings.Join(keys, ", "))
}

// addOAuthTo adds the flags of a client registered with an HTTP target's
// authorization server beforehand: run-mcp uses it instead of registering.
func (g *globals) addOAuthTo(f *pflag.FlagSet) {
	f.StringVar(&g.oauth.ClientID, "client-id", "", "For an HTTP target's OAuth: the ID of a client registered with its authorization server (instead of registering one)")
	f.StringVar(&g.oauth.ClientSecret, "client-secret", "", "With --client-id: its secret, if it has one")
	f.StringVar(&g.oauth.ClientMetadataURL, "client-metadata-url", "", "For an HTTP target's OAuth: the https URL of a client ID metadata document describing run-mcp, used as its client ID where the authorization server takes one")
}

// checkOAuth refuses OAuth flags that cannot work, before anything runs.
func checkOAuth(o oauth.Options) error {
	if o.ClientSecret != "" && o.ClientID == "" {
		return exitf(ExitUsage, "--client-secret goes with --client-id: give the ID of the client the secret belongs to")
	}
	if u := o.ClientMetadataURL; u != "" {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "https" || p.Host == "" || p.Path == "" || p.Path == "/" {
			return exitf(ExitUsage, "--client-metadata-url must be an https:// URL with a path (the client ID metadata document), got %q", u)
		}
	}
	return nil
}
