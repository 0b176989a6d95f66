// Package oauth is run-mcp's side of the MCP authorization specification
// (revisions 2025-11-25 and 2026-07-28, and the 2025-03-26 fallbacks) for an
// HTTP target: what a 401 or 403 challenge says, discovery of the
// protected-resource metadata (RFC 9728) and of the authorization server's
// metadata (RFC 8414, OpenID discovery) with its issuer checked, the client's
// identity (pre-registered, a client ID metadata document, or dynamic
// registration, RFC 7591), the authorization code grant with PKCE S256, state,
// the resource parameter (RFC 8707) and the iss check (RFC 9207), the token
// exchange and refresh (golang.org/x/oauth2), step-up scopes, and the token
// store: one owner-only file per server under the user's config directory.
//
// Every failure is an *Error that names the step and carries the evidence:
// each URL tried and what it answered, so the developer of the server sees
// which of their server's answers broke the flow. Nothing here ever puts a
// token, a secret or an authorization code in an error, a record other than
// the token store, or a log.
//
// It owns no person: the authorization URL goes to a Person the front end
// gives (a browser, the agent's host), and the redirect comes back to a
// loopback listener on 127.0.0.1. It imports nothing of run-mcp's but the
// owner-only directory check on Windows (internal/safesocket), and never
// mcp-go's client packages: see AGENTS.md on the init budget.
package oauth
