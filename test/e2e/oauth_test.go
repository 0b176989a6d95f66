package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// An HTTP target behind OAuth, as its developer meets it from a shell: the
// first command authorizes through the browser ($BROWSER fetches the URL
// and follows its redirects, as a browser would), the next ones reuse the
// token, refresh it when the server says it expired, and step up when a
// tool asks for more scope. Nothing a person must type.
func TestOAuthFromAShell(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer)
	tmp := t.TempDir()
	withBrowser := []string{"BROWSER=" + browser}

	r := runWith(t, tmp, withBrowser, "call", "whoami", "--", srv.MCP)
	r.wantCode(t, 0)
	if text := r.text(t); !strings.Contains(text, `scope "read offline_access"`) {
		t.Errorf("the call must run with the token it got: %s", text)
	}
	r.wantStderr(t, "needs authorization: opened the authorization URL of "+srv.Issuer, "with "+browser+" ($BROWSER)", "http://127.0.0.1:")
	if !srv.Saw("as: token grant=authorization_code", 1) || srv.Count("as: authorize") != 1 {
		t.Fatalf("one authorization expected\n%s", srv.Log())
	}

	// Reused: no browser this time, and none needed.
	r = runIn(t, tmp, "list-tools", "--", srv.MCP)
	r.wantCode(t, 0)
	if srv.Count("as: authorize") != 1 || srv.Count("as: register") != 1 {
		t.Errorf("the kept token and client must be reused\n%s", srv.Log())
	}

	// Expired at the server: refreshed silently, nobody asked.
	srv.Do(t, "expire")
	r = runIn(t, tmp, "call", "whoami", "--", srv.MCP)
	r.wantCode(t, 0)
	if !srv.Saw("as: token grant=refresh_token resource="+srv.MCP, 1) || srv.Count("as: authorize") != 1 {
		t.Errorf("an expired token must be refreshed (with its resource), not authorized again\n%s", srv.Log())
	}

	// Step-up: admin asks for a scope the token lacks; the person is asked
	// again, for everything asked before and admin.
	r = runWith(t, tmp, withBrowser, "call", "admin", "--", srv.MCP)
	r.wantCode(t, 0)
	if text := r.text(t); !strings.Contains(text, "admin") || !srv.Saw(`scope="read offline_access admin"`, 1) {
		t.Errorf("step-up: %s\n%s", text, srv.Log())
	}
	for _, secret := range []string{"access-", "refresh-", "code-"} {
		if strings.Contains(r.stderr+r.stdout, secret) {
			t.Errorf("a token or code (%s…) reached the output:\n%s", secret, r)
		}
	}
}

// Without a terminal and without $BROWSER nobody can open the URL: the
// command fails at once, naming the server and the command that
// authorizes; login with a browser then does, and the command works.
func TestOAuthWithNobodyToAskSaysHowToLogIn(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer)
	tmp := t.TempDir()
	r := runIn(t, tmp, "list-tools", "--", srv.MCP)
	r.wantCode(t, 69)
	r.wantStderr(t, "AUTHORIZATION_REQUIRED: the server at "+srv.MCP+" needs authorization", "run-mcp login "+srv.MCP)
	r = runWith(t, tmp, []string{"BROWSER=" + browser}, "login", srv.MCP)
	r.wantCode(t, 0)
	r.wantStderr(t, "Authorized with "+srv.Issuer, "scope read offline_access", "refreshed silently")
	r = runIn(t, tmp, "list-tools", "--", srv.MCP)
	r.wantCode(t, 0)
	r = runIn(t, tmp, "logout", srv.MCP)
	r.wantCode(t, 0)
	r.wantStderr(t, "Removed the credentials run-mcp kept for "+srv.MCP)
	r = runIn(t, tmp, "list-tools", "--", srv.MCP)
	r.wantCode(t, 69)
}

// An authorization server whose metadata names another issuer: the
// failure names the step, what each URL answered, and what to fix.
func TestOAuthWrongIssuerIsDiagnosed(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer, "-wrong-issuer")
	r := runWith(t, t.TempDir(), []string{"BROWSER=" + browser}, "list-tools", "--", srv.MCP)
	r.wantCode(t, 69)
	r.wantStderr(t, "failed at the authorization-server metadata step", `names the issuer "https://someone-else.example"`,
		"GET "+srv.MCP[:strings.LastIndex(srv.MCP, "/")]+"/.well-known/oauth-protected-resource/mcp: 200 OK",
		"GET "+srv.Issuer+"/.well-known/oauth-authorization-server: 200 OK", `fix: make "issuer"`)
	if srv.Count("as: authorize") != 0 || srv.Count("as: register") != 0 {
		t.Errorf("nothing may be asked of an authorization server whose metadata was refused\n%s", srv.Log())
	}
}

// Credentials stay with their origin: when the MCP endpoint redirects to
// another origin, neither the OAuth token nor a --header follows.
func TestOAuthCredentialsNeverFollowARedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer)
	tmp := t.TempDir()
	r := runWith(t, tmp, []string{"BROWSER=" + browser}, "list-tools", "--", srv.MCP)
	r.wantCode(t, 0)
	srv.Do(t, "redirect")
	r = runIn(t, tmp, "call", "whoami", "--header", "X-Api-Key: sk-never-shown", "--", srv.MCP)
	r.wantCode(t, 0)
	if !strings.Contains(r.text(t), "nobody (unauthenticated)") {
		t.Errorf("the call must have been served elsewhere: %s", r)
	}
	if !srv.Saw("elsewhere: POST /mcp", 1) || srv.Count(`credentials=""`) != srv.Count("elsewhere: ") {
		t.Fatalf("the other origin must see no credentials\n%s", srv.Log())
	}
	if strings.Contains(r.stderr+r.stdout, "sk-never-shown") {
		t.Errorf("a header value reached the output:\n%s", r)
	}
}

// A token file another user can read is refused, with the fix, before
// anything is sent.
func TestOAuthTokenFileOthersCanReadIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows guards the token directory with an access list, not mode bits")
	}
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer)
	tmp := t.TempDir()
	r := runWith(t, tmp, []string{"BROWSER=" + browser}, "list-tools", "--", srv.MCP)
	r.wantCode(t, 0)
	files, _ := filepath.Glob(filepath.Join(tmp, "run-mcp-config", "oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("one token file expected, found %v", files)
	}
	if err := os.Chmod(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	r = runWith(t, tmp, []string{"BROWSER=" + browser}, "list-tools", "--", srv.MCP)
	r.wantCode(t, 69)
	r.wantStderr(t, "failed at the token store step", "refusing the token file "+files[0], "mode 0644", "Fix: chmod 600 "+files[0])
	if srv.Count("as: authorize") != 1 {
		t.Errorf("nothing may be authorized past a refused store\n%s", srv.Log())
	}
}

// validate on an HTTP target checks the server's side of the
// authorization: a correct server passes each check; one whose
// protected-resource metadata names another resource fails that check,
// with the URL it tried and what it answered.
func TestValidateChecksTheServersAuthorization(t *testing.T) {
	t.Parallel()
	good := targets.StartOAuthServer(t, oauthServer)
	r := runWith(t, t.TempDir(), []string{"BROWSER=" + browser}, "validate", "--deep", "--", good.MCP)
	r.wantCode(t, 0)
	for _, want := range []string{"authorization_challenge", "401 with a Bearer challenge naming resource_metadata", "protected_resource_metadata",
		"authorization_server_metadata", "PKCE S256", "client_registration", "dynamic registration", "scopes_supported: read admin", "a made-up bearer token is refused with 401"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
	broken := targets.StartOAuthServer(t, oauthServer, "-prm", "wrong-resource")
	r = runWith(t, t.TempDir(), []string{"BROWSER=" + browser}, "validate", "--", broken.MCP)
	r.wantCode(t, 69) // it never connected: the authorization stopped at the metadata
	for _, want := range []string{"protected_resource_metadata", "is about the resource https://api.example.com/mcp, but run-mcp is reaching " + broken.MCP,
		"/.well-known/oauth-protected-resource/mcp: 200 OK", "Fix: set \"resource\""} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q\n%s", want, r)
		}
	}
}

// A session authorizes once (its daemon opens $BROWSER) and serves every
// command with the token; it remembers the headers it was started with by
// their names and fingerprints, and refuses a command that names others.
func TestOAuthAndHeadersInASession(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer)
	tmp := t.TempDir()
	name := "oauth-" + filepath.Base(tmp)
	defer runIn(t, tmp, "close-session", name)
	r := runWith(t, tmp, []string{"BROWSER=" + browser}, "list-tools", "--session", name, "--header", "X-Api-Key: sk-one-never-shown", "--", srv.MCP)
	r.wantCode(t, 0)
	r = runIn(t, tmp, "call", "whoami", "--session", name)
	r.wantCode(t, 0)
	if !strings.Contains(r.text(t), "whoami: client") || srv.Count("as: authorize") != 1 {
		t.Errorf("the session must call with its token\n%s\n%s", r, srv.Log())
	}
	r = runIn(t, tmp, "call", "whoami", "--session", name, "--header", "X-Api-Key: sk-two-never-shown", "--", srv.MCP)
	r.wantCode(t, 64)
	r.wantStderr(t, "was started with different headers: headers differ for: X-Api-Key (names only; values are not shown)")
	if strings.Contains(r.stderr, "never-shown") {
		t.Errorf("a header value reached the output:\n%s", r)
	}
}

// A server that lets the handshake through and refuses the tool list: the
// listing authorizes and goes on, and the standalone event stream the
// server refused meanwhile is no transport error (it reopens with the
// token).
func TestOAuthWhenOnlyTheToolListAsks(t *testing.T) {
	t.Parallel()
	srv := targets.StartOAuthServer(t, oauthServer, "-open-initialize")
	r := runWith(t, t.TempDir(), []string{"BROWSER=" + browser}, "call", "whoami", "--raw", "--", srv.MCP)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "whoami: client") || !srv.Saw("as: authorize", 1) {
		t.Errorf("the call must run authorized\n%s\n%s", r, srv.Log())
	}
	if strings.Contains(r.stdout+r.stderr, "401 Unauthorized") {
		t.Errorf("a refusal authorization answered is no transport error:\n%s", r)
	}
}
