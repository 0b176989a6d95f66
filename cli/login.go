package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// newLoginCmds are login and logout: run an HTTP server's OAuth
// authorization now (on a terminal, or with $BROWSER), and forget it.
func newLoginCmds(g *globals, version string) []*cobra.Command {
	login := &cobra.Command{Use: "login [options] <url>", Short: "Authorize run-mcp with an HTTP server's OAuth now, and keep the token",
		Long: `login runs the server's OAuth authorization afresh: it connects, and when the server asks for
authorization, opens the authorization URL (with $BROWSER, or printed on a terminal with the
platform's opener tried) and waits for the browser to come back to 127.0.0.1. The token is kept
for the server in an owner-only file under the user's config directory, and every later command
(headless, session or agent server) uses and refreshes it. A failure names the step of the
server's authorization that broke, with what each URL answered.`,
		Example: "  run-mcp login https://example.com/mcp\n  run-mcp login --client-id my-app https://example.com/mcp",
		Args:    cobra.ExactArgs(1)}
	f := login.Flags()
	g.addOAuthTo(f)
	g.addProtocolTo(f)
	f.Var(millis{&g.connectTimeout, "--connect-timeout", true}, "connect-timeout", "Milliseconds to wait for the handshake once authorized (default 30000)")
	login.RunE = func(cmd *cobra.Command, args []string) error {
		url, err := httpURL(cmd, args)
		if err != nil {
			return err
		}
		if err := g.validate(); err != nil {
			return err
		}
		io := streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
		return runLogin(cmd.Context(), g, version, io.withFeedback(cmd), url)
	}
	logout := &cobra.Command{Use: "logout <url>", Short: "Forget the OAuth token run-mcp keeps for an HTTP server",
		Long: "logout removes the file that holds the server's token, refresh token and client registration; the next command authorizes afresh.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			url, err := httpURL(cmd, args)
			if err != nil {
				return err
			}
			path, removed, err := oauth.Store{}.Remove(url)
			if err != nil {
				return exitf(ExitToolError, "%v", err)
			}
			io := streams{out: cmd.OutOrStdout(), err: cmd.ErrOrStderr()}
			if removed {
				io.status("Removed the credentials run-mcp kept for %s (%s)", url, path)
			} else {
				io.status("run-mcp keeps no credentials for %s (%s does not exist)", url, path)
			}
			return io.printJSON(map[string]any{"server": url, "removed": removed, "token_file": path})
		}}
	return []*cobra.Command{login, logout}
}

// httpURL is the one http(s):// URL a login or logout names.
func httpURL(cmd *cobra.Command, args []string) (string, error) {
	if len(args) != 1 || !strings.HasPrefix(args[0], "http://") && !strings.HasPrefix(args[0], "https://") {
		return "", exitf(ExitUsage, "run-mcp %s takes the http:// or https:// URL of an MCP server, e.g. run-mcp %s https://example.com/mcp", cmd.Name(), cmd.Name())
	}
	return args[0], nil
}

// runLogin forgets what is kept for url, connects (the authorization runs
// when the server asks for it) and lists what the server offers (a server
// may ask only then), and says what is kept now.
func runLogin(ctx context.Context, g *globals, version string, io streams, url string) error {
	store := oauth.Store{}
	if _, _, err := store.Remove(url); err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	era, _ := wire.ParseEra(g.protocol)
	cfg := actors.Config{URL: url, Era: era, ConnectTimeout: time.Duration(g.connectTimeout) * time.Millisecond, RequestTimeout: g.requestTimeout(),
		OAuth: g.oauth, Listing: true}
	err := oneShot(ctx, io, cfg, version, func(context.Context, *actors.Conn, actors.Info) error { return nil })
	var ee *ExitError
	if errors.As(err, &ee) && ee.Kind == "AUTHORIZATION_REQUIRED" {
		return &ExitError{Code: ExitUnavail, Kind: ee.Kind, Err: fmt.Errorf("AUTHORIZATION_REQUIRED: the server at %s asks for authorization, and login has no terminal to show the authorization URL on and no browser to open it with. "+
			"Run it on a terminal, or with BROWSER set to a command that opens a URL (BROWSER=xdg-open, say)", url)}
	}
	if err != nil {
		return err
	}
	held, ok, err := store.Held(url)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	if !ok {
		io.status("The server at %s did not ask for authorization: it answered the handshake and the listings without a token, so nothing is kept", url)
		return io.printJSON(map[string]any{"server": url, "authorized": false})
	}
	line := fmt.Sprintf("Authorized with %s", held.Issuer)
	if held.Scope != "" {
		line += ", scope " + held.Scope
	}
	if !held.Expiry.IsZero() {
		line += fmt.Sprintf(", expires %s", held.Expiry.Local().Format(time.DateTime))
	}
	if held.Refresh {
		line += " (refreshed silently when it expires)"
	}
	io.status("%s; the token is kept in %s", line, held.Path)
	return io.printJSON(struct {
		Server     string `json:"server"`
		Authorized bool   `json:"authorized"`
		oauth.Held
	}{url, true, held})
}
