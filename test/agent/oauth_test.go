package agent

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/test/targets"
)

// buildOAuth builds the OAuth fixture once, beside run-mcp.
var buildOAuth = sync.OnceValues(func() (string, error) {
	return targets.BuildBinary(buildDir, targets.OAuthServer)
})

func oauthTarget(t *testing.T) *targets.OAuthTarget {
	t.Helper()
	fixture, err := buildOAuth()
	if err != nil {
		t.Fatal(err)
	}
	return targets.StartOAuthServer(t, fixture)
}

// openURL does what a person does with an authorization URL: opens it in a
// browser, which follows the redirects back to run-mcp.
func openURL(ctx context.Context, t *testing.T, u string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Error(err)
		return
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the browser ended on %s", resp.Status)
	}
}

func configDir(t *testing.T) string {
	return "RUN_MCP_CONFIG_DIR=" + filepath.Join(t.TempDir(), "config")
}

// A host that declared URL-mode elicitation is asked to open the
// authorization URL, and the tool call goes on once the person is back: at
// connect, and again when a tool asks for more scope, which the call
// reports as an input round (its wait is input wait, not server time).
func TestAgentRelaysTheAuthorizationAsAURLElicitation(t *testing.T) {
	t.Parallel()
	srv := oauthTarget(t)
	var mu sync.Mutex
	var asked []mcp.ElicitationParams
	h := startWith(t, hostConfig{env: []string{configDir(t)},
		caps: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}},
		elicit: func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			mu.Lock()
			asked = append(asked, req.Params)
			mu.Unlock()
			openURL(ctx, t, req.Params.URL)
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
		}})
	text := mustText(t, h, "connect_to_mcp", map[string]any{"command": srv.MCP})
	wantContains(t, "connect", text, "Connected to MCP server")
	text = mustText(t, h, "call_mcp_primitive", tool("admin", nil, "include_metadata", true))
	wantContains(t, "step-up call", text, `admin: client`, `scope "read offline_access admin"`, `authorization (URL) "authorize run-mcp for `+srv.MCP+`": accepted`)
	// Expired at the server: a tool the cached list lacks is listed afresh
	// for the call, the listing is refused, the token refreshed, nobody
	// asked, and the call ends as it would have (no such tool).
	srv.Do(t, "expire")
	text = mustFail(t, h, "call_mcp_primitive", tool("whoamii", nil))
	wantContains(t, "unknown tool", text, `"whoami"`)
	if !srv.Saw("as: token grant=refresh_token", 1) {
		t.Errorf("the refused listing must be answered by a refresh\n%s", srv.Log())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("two authorizations expected (connect, step-up), the host was asked %d times", len(asked))
	}
	for _, p := range asked {
		if p.Mode != "url" || !strings.HasPrefix(p.URL, srv.Issuer+"/authorize?") || p.ElicitationID == "" || !strings.Contains(p.Message, srv.MCP) {
			t.Errorf("the elicitation: %+v", p)
		}
	}
}

var authURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/authorize\?\S+`)

// A host that cannot show a URL gets it in the tool result, with what to
// do; run-mcp waits for the browser meanwhile, so once the person has been
// there the next call goes through.
func TestAgentWithoutURLElicitationReturnsTheURL(t *testing.T) {
	t.Parallel()
	srv := oauthTarget(t)
	h := startWith(t, hostConfig{env: []string{configDir(t)}})
	text := mustFail(t, h, "connect_to_mcp", map[string]any{"command": srv.MCP})
	wantContains(t, "connect", text, "AUTHORIZATION_REQUIRED: the server at "+srv.MCP+" needs authorization", "run-mcp waits for the browser's redirect", "call again")
	u := authURL.FindString(text)
	if u == "" {
		t.Fatalf("no authorization URL in:\n%s", text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	openURL(ctx, t, u)
	wantContains(t, "connect after the browser", mustText(t, h, "connect_to_mcp", map[string]any{"command": srv.MCP}), "Connected to MCP server")
	wantContains(t, "call", mustText(t, h, "call_mcp_primitive", tool("whoami", nil)), "whoami: client")
}

// A 2026-07-28 host can be sent no request: a call's authorization goes
// back as that call's input_required, a URL-mode elicitation, and the
// host's retry carries the call on.
func TestModernHostGetsTheAuthorizationAsInputRequired(t *testing.T) {
	t.Parallel()
	srv := oauthTarget(t)
	h := startRawModern(t, configDir(t))
	h.send(t, modernCall("c", "connect_to_mcp", map[string]any{"command": srv.MCP}, nil))
	text, isErr := resultText(t, h.await(t, "c"))
	u := authURL.FindString(text)
	if !isErr || u == "" {
		t.Fatalf("a connect, which no call carries, returns the URL: %q", text)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	openURL(ctx, t, u)
	h.send(t, modernCall("c2", "connect_to_mcp", map[string]any{"command": srv.MCP}, nil))
	if text, isErr := resultText(t, h.await(t, "c2")); isErr {
		t.Fatalf("connect after the browser: %q", text)
	}
	call := modernCall("1", "call_mcp_primitive", tool("admin", nil, "include_metadata", true), nil)
	declareURL(call)
	h.send(t, call)
	key, params, state := inputRequired(t, h.await(t, "1"))
	if params["mode"] != "url" {
		t.Fatalf("the question: %v", params)
	}
	openURL(ctx, t, params["url"].(string))
	retry := modernCall("2", "call_mcp_primitive", tool("admin", nil, "include_metadata", true), map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "accept"}}})
	declareURL(retry)
	h.send(t, retry)
	text, isErr = resultText(t, h.await(t, "2"))
	if isErr || !strings.Contains(text, `scope "read offline_access admin"`) || !strings.Contains(text, "authorization (URL)") {
		t.Fatalf("the retried call: %q", text)
	}
}

// declareURL makes a modernCall's host declare URL-mode elicitation too.
func declareURL(call map[string]any) {
	meta := call["params"].(map[string]any)["_meta"].(map[string]any)
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}
}
