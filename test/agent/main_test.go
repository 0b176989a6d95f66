package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

// bin is the run-mcp binary under test, built once by TestMain;
// schemasServer is the fixture test/fixtures/schemas; buildDir holds them
// (and what tests build later, removed with it).
var bin, schemasServer, buildDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "run-mcp-agent-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent tests: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	buildDir = dir
	bin, err = targets.BuildBinary(dir, "./cmd/run-mcp")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent tests: %v\n", err)
		return 1
	}
	schemasServer, err = targets.BuildBinary(dir, "./test/fixtures/schemas")
	if err != nil {
		fmt.Fprintf(os.Stderr, "agent tests: %v\n", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "agent tests: goroutine leak: %v\n", err)
			return 1
		}
	}
	return code
}

// callTimeout bounds every request the test host sends: a reply that takes
// longer means run-mcp hung, which is a failure rather than a wait.
const callTimeout = 30 * time.Second

// lockedBuffer collects run-mcp's own stderr for failure messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// hostConfig says how the test host is started and what it declares.
type hostConfig struct {
	args []string // run-mcp flags (an -o is added unless given)
	// elicit answers elicitation/create; nil with noElicitation false means
	// "accept the defaults". noElicitation declares no elicitation at all.
	elicit        func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
	noElicitation bool
	env           []string // extra environment for run-mcp itself (e.g. a fake HOME)
	// caps are the capabilities the host declares at initialize, over what
	// its handlers imply (a URL-mode elicitation, say).
	caps       *mcp.ClientCapabilities
	modernHost bool // the host speaks 2026-07-28 (server/discover) instead of initialize
}

// host is the test's stand-in for a coding agent's MCP client, with
// run-mcp (the agent server) as its child process.
type host struct {
	c      *client.Client
	cmd    *exec.Cmd
	stderr *lockedBuffer
	outDir string

	closeOnce sync.Once
	closeErr  error

	notesMu sync.Mutex
	notes   []mcp.JSONRPCNotification // what run-mcp sent the host
}

// notifications returns what run-mcp has sent the host so far.
func (h *host) notifications() []mcp.JSONRPCNotification {
	h.notesMu.Lock()
	defer h.notesMu.Unlock()
	return append([]mcp.JSONRPCNotification(nil), h.notes...)
}

type elicitFunc func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)

func (f elicitFunc) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return f(ctx, req)
}

// sampler answers sampling/createMessage with a fixed text.
type sampler struct{}

func (sampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("the model says hello")},
		Model:           "test-model",
		StopReason:      "endTurn",
	}, nil
}

// acceptDefaults accepts a form with the defaults its schema declares.
func acceptDefaults(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	content := map[string]any{}
	if s, ok := req.Params.RequestedSchema.(map[string]any); ok {
		if props, ok := s["properties"].(map[string]any); ok {
			for k, v := range props {
				if p, ok := v.(map[string]any); ok {
					if d, ok := p["default"]; ok {
						content[k] = d
					}
				}
			}
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}, nil
}

// start runs run-mcp (the agent server) with extra flags under a host that
// declares form elicitation (accepting the defaults) and sampling.
func start(t *testing.T, extraArgs ...string) *host {
	t.Helper()
	return startWith(t, hostConfig{args: extraArgs})
}

func startWith(t *testing.T, cfg hostConfig) *host {
	t.Helper()
	h := &host{stderr: &lockedBuffer{}}
	args := cfg.args
	if !hasFlag(args, "-o", "--out-dir") {
		h.outDir = t.TempDir()
		args = append([]string{"-o", h.outDir}, args...)
	} else {
		h.outDir = flagValue(args, "-o", "--out-dir")
	}
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.Command(command, args...)
		cmd.Env = append(append(os.Environ(), env...), cfg.env...)
		cmd.Stderr = h.stderr
		h.cmd = cmd // Start calls this synchronously, before any use of h.cmd
		return cmd, nil
	}
	tr := transport.NewStdioWithOptions(bin, nil, args, transport.WithCommandFunc(cmdFunc))
	opts := []client.ClientOption{client.WithSamplingHandler(sampler{})}
	if !cfg.noElicitation {
		e := cfg.elicit
		if e == nil {
			e = acceptDefaults
		}
		opts = append(opts, client.WithElicitationHandler(elicitFunc(e)))
	}
	// A host of today opens with the 2025 initialize handshake.
	if !cfg.modernHost {
		opts = append(opts, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	}
	h.c = client.NewClient(tr, opts...)
	if err := h.c.Start(context.Background()); err != nil {
		t.Fatalf("start run-mcp: %v", err)
	}
	h.c.OnNotification(func(n mcp.JSONRPCNotification) {
		h.notesMu.Lock()
		h.notes = append(h.notes, n)
		h.notesMu.Unlock()
	})
	t.Cleanup(func() {
		_ = h.close()
		if t.Failed() {
			if s := h.stderr.String(); s != "" {
				t.Logf("run-mcp stderr:\n%s", s)
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "agent-test-host", Version: "1.0.0"}
	if !cfg.modernHost {
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	}
	if cfg.caps != nil {
		init.Params.Capabilities = *cfg.caps
	}
	if _, err := h.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize run-mcp: %v\nstderr:\n%s", err, h.stderr.String())
	}
	return h
}

// close closes the host's side (run-mcp's stdin) and waits for run-mcp.
func (h *host) close() error {
	h.closeOnce.Do(func() { h.closeErr = h.c.Close() })
	return h.closeErr
}

func hasFlag(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return true
			}
		}
	}
	return false
}

func flagValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}

// call sends tools/call to run-mcp and returns the whole result.
func (h *host) call(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return h.callCtx(ctx, t, tool, args)
}

func (h *host) callCtx(ctx context.Context, t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := h.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	return res
}

// callText calls a run-mcp tool and returns its text items joined by
// newlines and whether the result is an error.
func callText(t *testing.T, h *host, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res := h.call(t, tool, args)
	return joinText(res), res.IsError
}

// mustText is callText for a call that must succeed.
func mustText(t *testing.T, h *host, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := callText(t, h, tool, args)
	if isErr {
		t.Fatalf("%s %v: unexpected error result:\n%s", tool, args, text)
	}
	return text
}

// mustFail is callText for a call that must be an error result.
func mustFail(t *testing.T, h *host, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := callText(t, h, tool, args)
	if !isErr {
		t.Fatalf("%s %v: want an error result, got:\n%s", tool, args, text)
	}
	return text
}

func joinText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// demoArgs is the argument list of connect_to_mcp for the demo server.
func demoArgs(extra ...string) []any {
	out := []any{"demo-server"}
	for _, e := range extra {
		out = append(out, e)
	}
	return out
}

// connectDemo connects the demo server (under name, unless empty) and
// returns the reply.
func connectDemo(t *testing.T, h *host, name string, extra ...string) string {
	t.Helper()
	args := map[string]any{"command": bin, "args": demoArgs(extra...)}
	if name != "" {
		args["name"] = name
	}
	return mustText(t, h, "connect_to_mcp", args)
}

// tool is the call_mcp_primitive arguments for a tool call.
func tool(name string, arguments map[string]any, extra ...any) map[string]any {
	a := map[string]any{"type": "tool", "name": name}
	if arguments != nil {
		a["arguments"] = arguments
	}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i].(string)] = extra[i+1]
	}
	return a
}

func wantContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q; got:\n%s", what, w, text)
		}
	}
}

func wantNotContains(t *testing.T, what, text string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q but should not; got:\n%s", what, w, text)
		}
	}
}

// hasLine reports whether text has a line exactly equal to line.
func hasLine(text, line string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// eventually polls f every 50 ms until it returns true or d passes.
func eventually(d time.Duration, f func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if f() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// metadata extracts the one metadata item that comes before the result's
// own items: "--- metadata ---", the JSON up to the first blank line, then
// the lines for a person (input rounds, progress).
func metadata(t *testing.T, res *mcp.CallToolResult) (lines []string, meta map[string]any) {
	t.Helper()
	if len(res.Content) < 1 {
		t.Fatalf("want the metadata item, got %+v", res.Content)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok || !strings.HasPrefix(tc.Text, "--- metadata ---\n") {
		t.Fatalf("first item is not the metadata: %+v", res.Content[0])
	}
	body, human, found := strings.Cut(strings.TrimPrefix(tc.Text, "--- metadata ---\n"), "\n\n")
	if !found {
		t.Fatalf("the metadata item has no lines after its JSON: %q", tc.Text)
	}
	if err := json.Unmarshal([]byte(body), &meta); err != nil {
		t.Fatalf("the metadata item's JSON (up to the first blank line) does not parse: %v in %q", err, tc.Text)
	}
	return strings.Split(human, "\n"), meta
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeFile(t, p, content)
	return p
}

func callRequest(tool string, args map[string]any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	return req
}
