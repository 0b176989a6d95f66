package validate

import (
	"context"
	"strings"

	"github.com/run-mcp/run-mcp/internal/oauth"
)

// authorization checks an HTTP server's side of the MCP authorization
// (internal/oauth.Inspect) and adds each finding, with the evidence of the
// URLs it tried under its message.
func (r *Report) authorization(ctx context.Context, url string, opts oauth.Options) {
	for _, f := range oauth.Inspect(ctx, url, opts) {
		msg := f.Message
		if f.Status == oauth.Fail || f.Status == oauth.Warn {
			for _, a := range f.Evidence {
				msg += "\n    " + a.String()
			}
		}
		r.add(f.Check, Status(f.Status), "%s", msg)
	}
}

// userAuthorization says the user gives the server an Authorization header
// of their own: run-mcp then leaves its authorization alone.
func userAuthorization(h map[string]string) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}
