package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// tsV2 is the TypeScript SDK v2 dual-era fixture server as a target command.
func tsV2(t *testing.T, flags ...string) []string {
	t.Helper()
	node, err := targets.Node()
	targets.Require(t, err)
	entry, err := targets.Entry("test/fixtures/ts-v2/server.mjs")
	targets.Require(t, err)
	_, err = targets.Entry("node_modules/@modelcontextprotocol/server/package.json")
	targets.Require(t, err)
	return append([]string{"--", node, entry}, flags...)
}

// rawEnvelope8 decodes `call --raw` output.
func rawEnvelope8(t *testing.T, r result) map[string]json.RawMessage {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
		t.Fatalf("call --raw printed no JSON: %v\n%s", err, r)
	}
	return env
}

type roundsOut struct {
	Rounds []struct {
		Kind    string `json:"kind"`
		Outcome string `json:"outcome"`
	} `json:"rounds"`
}

// A headless 2026-07-28 call whose server keeps asking after the
// deterministic decline ends as a legacy one does, isError and exit 1: its
// JSON is the server's last input_required result, with the rounds, instead
// of a retry-limit error.
func TestHeadlessInputRequiredDeclined(t *testing.T) {
	args := append([]string{"call", "confirm-deploy", "env=prod", "--raw", "--protocol", "2026-07-28"}, tsV2(t)...)
	r := run(t, args...)
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("the call must end unanswered, exit 1, its --raw envelope on stdout alone: %s", r)
	}
	env := rawEnvelope8(t, r)
	if string(env["resultType"]) != `"input_required"` {
		t.Errorf("the result must be the server's input_required as sent:\n%s", r.stdout)
	}
	var rounds roundsOut
	_ = json.Unmarshal(env["input_requests"], &rounds)
	if len(rounds.Rounds) != 1 || rounds.Rounds[0].Kind != "elicitation" || rounds.Rounds[0].Outcome != "declined" {
		t.Errorf("input_requests must show the one declined form: %s", env["input_requests"])
	}
	if strings.Contains(r.stderr, "exceeded maximum retries") {
		t.Errorf("the retry limit must not be what ends the call:\n%s", r.stderr)
	}
}

// A refused sampling request ends the rounds too (an input response cannot
// carry a refusal).
func TestHeadlessInputRequiredSamplingRefused(t *testing.T) {
	args := append([]string{"call", "summarize", "text=hello", "--raw", "--protocol", "2026-07-28"}, tsV2(t)...)
	r := run(t, args...)
	if r.code != 1 || r.stderr != "" {
		t.Fatalf("the call must end unanswered, exit 1, its --raw envelope on stdout alone: %s", r)
	}
	plain := run(t, append([]string{"call", "summarize", "text=hello", "--protocol", "2026-07-28"}, tsV2(t)...)...)
	if plain.code != 1 || !strings.Contains(plain.stderr, "still requires input that nobody can give from a shell") {
		t.Errorf("without --raw the reason must be said: %s", plain)
	}
	var rounds roundsOut
	_ = json.Unmarshal(rawEnvelope8(t, r)["input_requests"], &rounds)
	if len(rounds.Rounds) != 1 || rounds.Rounds[0].Kind != "sampling" || rounds.Rounds[0].Outcome != "refused" {
		t.Errorf("input_requests must show the refused sampling:\n%s", r.stdout)
	}
}

// A legacy connect to a server that refuses the 2025 handshake says what to
// try, once: "Unsupported protocol version" and the --protocol auto hint
// each appear one time.
func TestLegacyRefusedByModernOnly(t *testing.T) {
	r := run(t, append([]string{"list-tools"}, tsV2(t, "--modern-only")...)...)
	if r.code != 69 || strings.Count(r.stderr, "--protocol auto") != 1 || strings.Count(r.stderr, "Unsupported protocol version") != 1 {
		t.Fatalf("a modern-only server must be explained, once: %s", r)
	}
	r = run(t, append([]string{"list-tools", "--protocol", "auto"}, tsV2(t, "--modern-only")...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "protocol 2026-07-28 (modern era)") {
		t.Errorf("auto must reach it: %s", r)
	}
}

// scripted is a Streamable HTTP server that answers each JSON-RPC method
// from a script and records the methods it was asked, in order.
type scripted struct {
	mu      sync.Mutex
	methods []string
	answer  func(n int, method string, id json.RawMessage) (int, string)
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	s.mu.Lock()
	s.methods = append(s.methods, msg.Method)
	n := len(s.methods)
	s.mu.Unlock()
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	status, result := s.answer(n, msg.Method, msg.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, result)
}

func (s *scripted) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.methods)
}

func rpcResult(id json.RawMessage, result string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
}

func rpcError(id json.RawMessage, code, msg, data string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":` + code + `,"message":"` + msg + `","data":` + data + `}}`
}

// server/discover answered -32022 is retried with a version the server
// lists, and the connection is modern: no initialize.
func TestDiscoverUnsupportedVersionRetried(t *testing.T) {
	for _, mode := range []string{"auto", "2026-07-28"} {
		s := &scripted{answer: func(n int, method string, id json.RawMessage) (int, string) {
			switch {
			case n == 1:
				return http.StatusBadRequest, rpcError(id, "-32022", "Unsupported protocol version", `{"supported":["2026-07-28"],"requested":"2026-07-28"}`)
			case method == "server/discover":
				return 200, rpcResult(id, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"picky","version":"1"}}}`)
			case method == "tools/list":
				return 200, rpcResult(id, `{"resultType":"complete","tools":[{"name":"t","inputSchema":{"type":"object"}}]}`)
			}
			return 200, rpcError(id, "-32601", "method not found", "null")
		}}
		srv := httptest.NewServer(s)
		r := run(t, "list-tools", "--protocol", mode, "--", srv.URL)
		srv.Close()
		if r.code != 0 || !strings.Contains(r.stdout, `"name": "t"`) {
			t.Errorf("--protocol %s: the retry must connect: %s", mode, r)
		}
		if got := s.asked(); slices.Contains(got, "initialize") || len(got) < 2 || got[1] != "server/discover" {
			t.Errorf("--protocol %s: asked %v; want server/discover retried and no initialize", mode, got)
		}
	}
}

// A pinned revision never falls back to initialize, and says so.
func TestPinNeverFallsBack(t *testing.T) {
	s := &scripted{answer: func(_ int, _ string, id json.RawMessage) (int, string) {
		return 200, rpcError(id, "-32601", "method not found", "null")
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	r := run(t, "list-tools", "--protocol", "2026-07-28", "--", srv.URL)
	if r.code != 69 || !strings.Contains(r.stderr, "did not fall back to initialize") || !strings.Contains(r.stderr, "--protocol auto") {
		t.Errorf("a pin on a legacy server must fail plainly: %s", r)
	}
	if slices.Contains(s.asked(), "initialize") {
		t.Errorf("a pin sent initialize: %v", s.asked())
	}
	r = run(t, "list-tools", "--protocol", "auto", "--", srv.URL)
	if !slices.Contains(s.asked(), "initialize") {
		t.Errorf("auto must fall back to initialize on -32601: asked %v\n%s", s.asked(), r)
	}
}

// Over HTTP, a legacy session opens the standalone GET stream and is
// terminated with DELETE on disconnect; the demo then answers 404 for it.
func TestHTTPSessionLifecycle(t *testing.T) {
	target, err := url.Parse(targets.StartHTTPDemo(t, bin))
	targets.Require(t, err)
	var mu sync.Mutex
	var seen []string
	session := ""
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	proxy.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method)
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	// A call long enough for the GET stream to have been asked for.
	r := run(t, "call", "slow", "seconds:=0.5", "steps:=1", "--", srv.URL+target.Path)
	if r.code != 0 {
		t.Fatalf("call over HTTP: %s", r)
	}
	mu.Lock()
	methods, sid := slices.Clone(seen), session
	mu.Unlock()
	if !slices.Contains(methods, http.MethodGet) {
		t.Errorf("the standalone GET stream was never opened: %v", methods)
	}
	if methods[len(methods)-1] != http.MethodDelete {
		t.Errorf("the session must end with DELETE: %v", methods)
	}
	req, _ := http.NewRequest(http.MethodPost, target.String(), strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	targets.Require(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a terminated session must get 404, got %d", resp.StatusCode)
	}
}

// reconnect of an HTTP target says that nothing was restarted.
func TestReconnectHTTPSaysNothingRestarted(t *testing.T) {
	u := targets.StartHTTPDemo(t, bin)
	tmp := t.TempDir()
	if r := runIn(t, tmp, "list-tools", "--session", "h8", "--", u); r.code != 0 {
		t.Fatalf("open the session: %s", r)
	}
	defer runIn(t, tmp, "close-session", "h8")
	r := runIn(t, tmp, "reconnect", "--session", "h8")
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("reconnect printed no JSON: %v\n%s", err, r)
	}
	if out["restarted"] != false || !strings.Contains(out["note"].(string), "nothing was restarted") {
		t.Errorf("reconnect of an HTTP target must say nothing was restarted: %s", r.stdout)
	}
	if _, ok := out["pid"]; ok {
		t.Errorf("an HTTP target has no pid to report: %s", r.stdout)
	}
}

// validate flags what each era forbids.
func TestValidateEraRules(t *testing.T) {
	breaker, err := targets.BuildBinary(t.TempDir(), "./test/fixtures/erabreaker")
	targets.Require(t, err)
	r := run(t, "validate", "--protocol", "2026-07-28", "--", breaker)
	if !strings.Contains(r.stdout+r.stderr, "[FAIL] era_rules: 2 message(s)") {
		t.Errorf("validate must flag a legacy-style request and an unsolicited list_changed:\n%s", r)
	}
	r = run(t, "validate", "--", breaker)
	if !strings.Contains(r.stdout+r.stderr, "[FAIL] resources_subscribe") {
		t.Errorf("validate must flag an advertised subscribe answered -32601:\n%s", r)
	}
}

// A pinned 2026-07-28 connect to a server that crashes at start reports a
// crash, with how the server ended and its stderr, not that the server
// does not serve the pinned revision; an unreachable URL says so once.
func TestPinnedCrashIsACrash(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"crash before reading", args([]string{"--protocol", "2026-07-28", "list-tools"}, demo("--crash-at-start", "no database")),
			[]string{"The server exited with code 1.", "demo-server: fatal: no database"}},
		{"session", args([]string{"--protocol", "2026-07-28", "list-tools", "--session", "pinned"}, demo("--crash-at-start", "no database")),
			[]string{"The server exited with code 1.", "demo-server: fatal: no database"}},
		{"unreachable URL", []string{"--protocol", "2026-07-28", "list-tools", "--", "http://127.0.0.1:1/mcp"},
			[]string{"could not reach the server at http://127.0.0.1:1/mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tc.args...)
			r.wantCode(t, 69)
			r.wantStderr(t, tc.want...)
			if strings.Contains(r.stderr, "does not serve the pinned revision") {
				t.Errorf("a crash reported as a server that does not serve the pin\n%s", r)
			}
			if n := strings.Count(r.stderr, "failed to send request:"); n > 1 {
				t.Errorf(`"failed to send request:" %d times\n%s`, n, r)
			}
		})
	}
}
