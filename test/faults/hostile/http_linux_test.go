package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// mcpHTTP serves a minimal MCP server over Streamable HTTP (2025 era, JSON
// answers) on ln, until the test ends: initialize, tools/list (one tool,
// echo), tools/call; 202 for a notification; 405 for the standalone GET
// stream and DELETE. special, when not nil, may answer a method itself
// (returning true). It returns the endpoint's URL.
func mcpHTTP(t *testing.T, ln net.Listener, special func(method string, w http.ResponseWriter, r *http.Request) bool) string {
	t.Helper()
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if special != nil && special(req.Method, w, r) {
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "http-fixture", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{}}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "echoed"}}}
		default:
			result = map[string]any{}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	})}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	return ln
}

// streamZeros writes n '0' bytes, or until the client goes.
func streamZeros(w http.ResponseWriter, r *http.Request, n int64) {
	buf := bytes.Repeat([]byte("0"), 1<<20)
	for n > 0 && r.Context().Err() == nil {
		k, err := w.Write(buf[:min(int64(len(buf)), n)])
		if err != nil {
			return
		}
		n -= int64(k)
	}
}

// runRSS runs run-mcp to completion and returns how it ended and its peak
// resident memory in MiB. It runs through test/bench/rusage: on Linux a
// child inherits its forking parent's peak RSS at exec, and this test
// process may have grown large (the race detector, a 64 MB host line); the
// helper is small.
func runRSS(t *testing.T, args ...string) (result, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	report, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer report.Close()
	c := exec.CommandContext(ctx, rusage, append([]string{bin}, args...)...)
	c.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	c.ExtraFiles = []*os.File{w}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err = c.Run()
	w.Close()
	r := result{args: args, stdout: out.String(), stderr: errb.String(), code: c.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("%v (a hang or a crash)\n%s", err, r)
	}
	var cpu, kb int64
	if _, err := fmt.Fscan(report, &cpu, &kb); err != nil {
		t.Fatalf("test/bench/rusage reported nothing (%v)\n%s", err, r)
	}
	return r, kb >> 10 // KiB on Linux
}

// rssLimit bounds run-mcp's peak memory reading an answer of 2 GB: the 64
// MB cap, what is read past it to name the size, and the runtime's own.
// Before the cap, a one-shot call reading 2 GB peaked at 1.84 GB.
const rssLimit = 400

// An HTTP target that answers a call with 2 GB, as a JSON body or as one
// SSE event, fails the call with the 64 MB cap's message, and run-mcp's
// memory stays bounded while it reads it.
func TestAnHTTPAnswerOverTheCapFailsInBoundedMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
	}{
		{"a JSON body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			streamZeros(w, r, 2<<30)
		}},
		{"an SSE event", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: "))
			streamZeros(w, r, 2<<30)
		}},
	} {
		url := mcpHTTP(t, listen(t, "127.0.0.1:0"), func(method string, w http.ResponseWriter, r *http.Request) bool {
			if method != "tools/call" {
				return false
			}
			tc.answer(w, r)
			return true
		})
		r, rss := runRSS(t, "call", "echo", "--", url)
		t.Logf("%s: peak RSS %d MiB", tc.name, rss)
		if r.code == 0 || !strings.Contains(r.stderr, "bytes, over the 64 MB cap on one message") {
			t.Errorf("%s of 2 GB must fail the command with the cap's message:\n%s", tc.name, r)
		}
		if rss > rssLimit {
			t.Errorf("%s of 2 GB took run-mcp to %d MiB, more than %d", tc.name, rss, rssLimit)
		}
	}
}

// headersSeen records the headers of every request a server took.
type headersSeen struct {
	mu   sync.Mutex
	seen []http.Header
}

func (h *headersSeen) add(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, r.Header.Clone())
}

// with says how many requests carried header name.
func (h *headersSeen) with(name string) (n, of int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, hd := range h.seen {
		if hd.Get(name) != "" {
			n++
		}
	}
	return n, len(h.seen)
}

// A server registered with configured headers that answers 307 to another
// port or another host is followed there without those headers (a capture
// server sees none), and the command says that a redirect happened and
// where: a status line on stderr, and "redirects" in --raw, with the
// header names kept back, never their values.
func TestARedirectKeepsConfiguredHeadersAtTheirOrigin(t *testing.T) {
	t.Parallel()
	for _, elsewhere := range []string{"127.0.0.1:0", "127.0.0.2:0"} {
		capture := &headersSeen{}
		to := mcpHTTP(t, listen(t, elsewhere), func(_ string, _ http.ResponseWriter, r *http.Request) bool {
			capture.add(r)
			return false
		})
		origin := &headersSeen{}
		ln := listen(t, "127.0.0.1:0")
		from := "http://" + ln.Addr().String() + "/mcp"
		srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			origin.add(r)
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		})}}
		srv.Start()
		t.Cleanup(srv.Close)

		home := t.TempDir()
		config := fmt.Sprintf(`{"mcpServers": {"moved": {"type": "http", "url": %q, "headers": {"Authorization": "Bearer s3cret-token", "X-Api-Key": "k3y-value"}}}}`, from)
		if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runWithHome(t, home, "list-tools", "--server", "moved")
		r.want(t, 0, "Redirected: "+from+" answered 307 and run-mcp followed it to "+to+"; the configured headers (Authorization, X-Api-Key) were not sent there")
		raw := runWithHome(t, home, "list-tools", "--raw", "--server", "moved")
		var env struct {
			Redirects []struct {
				Status   int      `json:"status"`
				From     string   `json:"from"`
				To       string   `json:"to"`
				Withheld []string `json:"withheld"`
			} `json:"redirects"`
		}
		if err := json.Unmarshal([]byte(raw.stdout), &env); err != nil || len(env.Redirects) != 1 ||
			env.Redirects[0].Status != 307 || env.Redirects[0].From != from || env.Redirects[0].To != to || strings.Join(env.Redirects[0].Withheld, ",") != "Authorization,X-Api-Key" {
			t.Errorf("--raw must list the redirect (%v):\n%s", err, raw)
		}
		for _, name := range []string{"Authorization", "X-Api-Key"} {
			if n, of := capture.with(name); n > 0 || of == 0 {
				t.Errorf("%s: the server at %s got %s on %d of its %d requests", elsewhere, to, name, n, of)
			}
			if n, of := origin.with(name); n == 0 {
				t.Errorf("the origin never got %s (%d requests): the configured headers were not used", name, of)
			}
		}
		for _, out := range []string{r.stdout, r.stderr, raw.stdout, raw.stderr} {
			wantAbsent(t, "what run-mcp printed", out, "s3cret-token", "k3y-value")
		}
	}
}

// runWithHome runs run-mcp with HOME=home, where its client configs are.
func runWithHome(t *testing.T, home string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = home
	c.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "HOME="+home)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String(), code: c.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("%v (a hang or a crash)\n%s", err, r)
	}
	return r
}
