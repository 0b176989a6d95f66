package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// redirectsOf are the distinct HTTP redirects c's current life followed
// (none for a server on stdio).
func redirectsOf(ctx context.Context, c *actors.Conn) []wire.Redirect {
	if c == nil {
		return nil
	}
	st, err := c.Status(context.WithoutCancel(ctx))
	if err != nil {
		return nil
	}
	return st.Redirects
}

// redirectLine says on stderr that the server redirected run-mcp, and where:
// a person who gave one URL should know that another answered, and that
// the configured headers (names only) stayed with the first origin.
func redirectLine(r wire.Redirect) string {
	line := fmt.Sprintf("Redirected: %s answered %d and run-mcp followed it to %s", r.From, r.Status, r.To)
	if len(r.Withheld) > 0 {
		line += fmt.Sprintf("; the configured headers (%s) were not sent there, another origin", strings.Join(r.Withheld, ", "))
	}
	return line
}

// showRedirects prints a status line for each redirect after the first
// shown ones, and returns how many are shown now.
func showRedirects(ctx context.Context, io streams, c *actors.Conn, shown int) int {
	rs := redirectsOf(ctx, c)
	for _, r := range rs[min(shown, len(rs)):] {
		io.status("%s", redirectLine(r))
	}
	return max(shown, len(rs))
}

// redirectsField is --raw's "redirects" for a target at a URL: each
// redirect its connection followed (an empty list when none); nil for a
// server on stdio, which has no field.
func redirectsField(ctx context.Context, c *actors.Conn, hasProcess bool) []field {
	if hasProcess {
		return nil
	}
	return []field{{"redirects", orEmpty(redirectsOf(ctx, c))}}
}
