package actors

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/wire"
)

// With stuckEnv set to a comma-separated list of methods, the test binary
// is a legacy MCP server that never answers those methods and answers the
// rest at once (a trimmed test/fixtures/stuck).
const stuckEnv = "RUN_MCP_ACTORS_TEST_STUCK"

func serveStuck(never []string) {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		if slices.Contains(never, req.Method) {
			fmt.Fprintf(os.Stderr, "stuck: ignoring %s\n", req.Method)
			continue
		}
		var result any = map[string]any{}
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "stuck", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{}, "prompts": map[string]any{}}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
		case "prompts/list":
			result = map[string]any{"prompts": []any{}}
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		fmt.Println(string(b))
	}
}

func stuckConfig(t *testing.T, never ...string) Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Spec: wire.Spec{Command: exe, Env: map[string]string{stuckEnv: strings.Join(never, ",")}}}
}

// bounded gives each test a deadline far above the budgets it sets: a hang
// fails the test instead of blocking the suite.
func bounded(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connectStuck(t *testing.T, opts Options, cfg Config) *Conn {
	t.Helper()
	reg := NewRegistry(opts)
	t.Cleanup(reg.Close)
	if _, err := reg.Connect(bounded(t), "", cfg); err != nil {
		t.Fatalf("connect: %v", err)
	}
	c, err := reg.Resolve("", true)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantRequestTimeout(t *testing.T, err error, method string, budget time.Duration) *RequestTimeoutError {
	t.Helper()
	var rt *RequestTimeoutError
	if !errors.As(err, &rt) {
		t.Fatalf("want a RequestTimeoutError for %s, got %v", method, err)
	}
	if rt.Method != method || rt.Budget != budget {
		t.Errorf("want %s within %s, got %s within %s", method, budget, rt.Method, rt.Budget)
	}
	want := fmt.Sprintf("%s got no answer within %d ms", method, budget.Milliseconds())
	if !strings.Contains(err.Error(), want) || !IsTimeout(err) {
		t.Errorf("want %q in:\n%v", want, err)
	}
	return rt
}

// Every housekeeping request of the Conn goes through the one helper: a
// request the server never answers fails naming itself and its budget, with
// the server's stderr, and the connection stays usable.
func TestUnansweredHousekeepingRequestsTimeOut(t *testing.T) {
	ctx := bounded(t)
	budget := 300 * time.Millisecond
	c := connectStuck(t, Options{RequestTimeout: budget}, stuckConfig(t, "tools/list", "ping", "resources/subscribe", "weird/method"))
	_, err := c.List(ctx, "tools")
	rt := wantRequestTimeout(t, err, "tools/list", budget)
	if rt.Report == nil || !strings.Contains(err.Error(), "stuck: ignoring tools/list") {
		t.Errorf("the server's stderr must come with the timeout:\n%v", err)
	}
	_, err = c.Page(ctx, "tools", "")
	wantRequestTimeout(t, err, "tools/list", budget)
	_, err = c.Tools(ctx, true)
	wantRequestTimeout(t, err, "tools/list", budget)
	wantRequestTimeout(t, c.Ping(ctx), "ping", budget)
	wantRequestTimeout(t, c.Subscribe(ctx, "x://y", false), "resources/subscribe", budget)
	_, err = c.Request(ctx, "weird/method", nil)
	wantRequestTimeout(t, err, "weird/method", budget)
	if _, err := c.List(ctx, "prompts"); err != nil {
		t.Fatalf("an answered request after the timeouts: %v", err)
	}
	if c.Phase() != PhaseLive {
		t.Fatalf("a timeout must not end the connection: %s", c.Phase())
	}
}

// The budget is the command's own (context), else the connection's, else
// the registry's, else the default; a call always has one.
func TestBudgetPrecedence(t *testing.T) {
	c := &Conn{env: &engine{}}
	bg := context.Background()
	if got := c.requestBudget(bg, Config{}); got != DefaultRequestTimeout {
		t.Errorf("nothing set: want %s, got %s", DefaultRequestTimeout, got)
	}
	c.env.requestTimeout = 2 * time.Second
	if got := c.requestBudget(bg, Config{}); got != 2*time.Second {
		t.Errorf("registry: want 2s, got %s", got)
	}
	s := Config{RequestTimeout: 3 * time.Second}
	if got := c.requestBudget(bg, s); got != 3*time.Second {
		t.Errorf("connection: want 3s, got %s", got)
	}
	if got := c.requestBudget(WithRequestTimeout(bg, 4*time.Second), s); got != 4*time.Second {
		t.Errorf("command: want 4s, got %s", got)
	}
	if got := c.requestBudget(WithRequestTimeout(bg, 0), s); got != 3*time.Second {
		t.Errorf("a zero override is no override: want 3s, got %s", got)
	}
	if callBudget(0) != DefaultCallTimeout || callBudget(time.Second) != time.Second {
		t.Errorf("a call without a budget gets %s: got %s", DefaultCallTimeout, callBudget(0))
	}
}

// The connection's and the command's budgets reach the request; the
// front end's words name the knob.
func TestBudgetAndWordsReachTheRequest(t *testing.T) {
	ctx := bounded(t)
	cfg := stuckConfig(t, "tools/list")
	cfg.RequestTimeout = 200 * time.Millisecond
	c := connectStuck(t, Options{RequestTimeout: time.Hour, Words: Words{RequestTimeout: "--my-flag"}}, cfg)
	_, err := c.List(ctx, "tools")
	wantRequestTimeout(t, err, "tools/list", 200*time.Millisecond)
	if !strings.Contains(err.Error(), "change it with --my-flag") {
		t.Errorf("the front end's words must name the knob:\n%v", err)
	}
	_, err = c.List(WithRequestTimeout(ctx, 250*time.Millisecond), "tools")
	wantRequestTimeout(t, err, "tools/list", 250*time.Millisecond)
}

// The caller's own cancellation stays a cancellation, not a timeout.
func TestCallerDeadlineIsNotABudgetTimeout(t *testing.T) {
	c := connectStuck(t, Options{RequestTimeout: time.Hour}, stuckConfig(t, "tools/list"))
	ctx, cancel := context.WithTimeout(bounded(t), 200*time.Millisecond)
	defer cancel()
	_, err := c.List(ctx, "tools")
	var rt *RequestTimeoutError
	if err == nil || errors.As(err, &rt) {
		t.Fatalf("the caller's own deadline must not read as the server's fault: %v", err)
	}
}

// The listing after the handshake is bounded too: connect fails with the
// reason, once, and the stderr report once.
func TestConnectListingIsBounded(t *testing.T) {
	reg := NewRegistry(Options{RequestTimeout: 200 * time.Millisecond})
	defer reg.Close()
	cfg := stuckConfig(t, "tools/list")
	cfg.Listing = true
	_, err := reg.Connect(bounded(t), "", cfg)
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ConnectError, got %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "failed to list what it offers: tools/list got no answer within 200 ms") {
		t.Errorf("connect must say which listing went unanswered:\n%s", msg)
	}
	if n := strings.Count(msg, StderrHeading); n != 1 {
		t.Errorf("the stderr report must appear once, got %d:\n%s", n, msg)
	}
}

// A call's timeout names its request and keeps 3.0's "timed out".
func TestCallTimeoutNamesTheRequest(t *testing.T) {
	c := connectStuck(t, Options{}, stuckConfig(t, "tools/call"))
	_, err := c.Call(bounded(t), CallRequest{Kind: KindTool, Name: "echo", Timeout: 200 * time.Millisecond})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Method != "tools/call" || !IsTimeout(err) {
		t.Fatalf("want a tools/call TimeoutError, got %v", err)
	}
	for _, want := range []string{"timed out", "tools/call got no answer within its 200 ms budget", "stuck: ignoring tools/call"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in:\n%v", want, err)
		}
	}
}
