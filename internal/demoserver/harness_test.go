package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// patience bounds every wait in these tests. It is a deadline against hangs,
// not a timing assertion: nothing here should come close to it.
const patience = 20 * time.Second

// syncBuffer is a bytes.Buffer safe for the server's writers and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// poll checks cond until it holds (true) or patience runs out (false).
func poll(cond func() bool) bool {
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

// eventually fails the test unless cond comes to hold.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("gave up waiting for %s", what)
	}
}

// served is one in-process Serve over pipes.
type served struct {
	toServer   *io.PipeWriter // the server's stdin, written by the test or client
	fromServer io.Reader      // the server's stdout, teed into stdout
	stdout     *syncBuffer
	stderr     *syncBuffer
	done       chan error
	cancel     context.CancelFunc
}

// serve starts Serve in the background. Cleanup closes its stdin, waits for
// it to return and closes the pipes, so no goroutine outlives the test.
func serve(t *testing.T, opts Options) *served {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{
		toServer: inW,
		stdout:   &syncBuffer{},
		stderr:   &syncBuffer{},
		done:     make(chan error, 1),
		cancel:   cancel,
	}
	s.fromServer = io.TeeReader(outR, s.stdout)
	go func() {
		err := Serve(ctx, opts, inR, outW, s.stderr)
		_ = outW.Close() // the reader of stdout sees EOF
		_ = inR.Close()  // frees any goroutine still reading stdin
		s.done <- err
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		// The client has stopped reading by now. A real server's stdout is
		// a pipe whose reader closed (writes fail with EPIPE); an io.Pipe
		// with no reader would block a late write (the answer that ends a
		// cancelled listen stream) forever, and Serve with it.
		_ = outR.CloseWithError(io.ErrClosedPipe)
		s.wait(t)
		cancel()
	})
	return s
}

// wait returns Serve's error, failing the test if it does not return. It can
// be called more than once.
func (s *served) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(patience):
		s.cancel()
		t.Fatalf("Serve did not return")
		return nil
	}
}

// notes records the notifications a client receives.
type notes struct {
	mu   sync.Mutex
	list []mcp.JSONRPCNotification
}

// add runs on mcp-go's read loop, so it only appends.
func (n *notes) add(note mcp.JSONRPCNotification) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, note)
}

func (n *notes) withMethod(method string) []mcp.JSONRPCNotification {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []mcp.JSONRPCNotification
	for _, note := range n.list {
		if note.Method == method {
			out = append(out, note)
		}
	}
	return out
}

// fakeUser answers elicitations with a fixed action and content.
type fakeUser struct {
	action  mcp.ElicitationResponseAction
	content map[string]any
	asked   chan string
}

func (u *fakeUser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	select {
	case u.asked <- req.Params.Message:
	default:
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: u.action, Content: u.content}}, nil
}

// fakeModel answers sampling requests, or refuses them.
type fakeModel struct{ refuse bool }

func (m *fakeModel) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if m.refuse {
		return nil, errors.New("the user said no")
	}
	prompt := samplingText(req.Messages[0].Content)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("model heard: " + prompt)},
		Model:           "fake-model",
		StopReason:      "endTurn",
	}, nil
}

// fakeRoots lists fixed roots.
type fakeRoots struct{ roots []mcp.Root }

func (r *fakeRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: r.roots}, nil
}

// session is a connected client with everything it received.
type session struct {
	*mcp.InitializeResult
	c     *client.Client
	notes *notes
	srv   *served
	user  *fakeUser
}

// legacy pins the 2025 handshake.
func legacy() client.ClientOption {
	return client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)
}

// connect serves opts and connects a client that accepts elicitations with
// name=Ada colour=red, samples with a fake model and lists one root.
func connect(t *testing.T, opts Options, extra ...client.ClientOption) *session {
	t.Helper()
	user := &fakeUser{
		action:  mcp.ElicitationResponseActionAccept,
		content: map[string]any{"name": "Ada", "colour": "red"},
		asked:   make(chan string, 1),
	}
	clientOpts := append([]client.ClientOption{
		client.WithElicitationHandler(user),
		client.WithSamplingHandler(&fakeModel{}),
		client.WithRootsHandler(&fakeRoots{roots: []mcp.Root{{URI: "file:///work/demo", Name: "demo"}}}),
	}, extra...)
	return connectWith(t, opts, user, clientOpts...)
}

func connectWith(t *testing.T, opts Options, user *fakeUser, clientOpts ...client.ClientOption) *session {
	t.Helper()
	srv := serve(t, opts)
	c := client.NewClient(transport.NewIO(srv.fromServer, srv.toServer, nil), clientOpts...)
	// The client's handlers get the Start ctx, not the call's: cancel it on
	// the way out so none outlives the test.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		_ = c.Close() // closes the server's stdin: Serve returns
		cancel()
	})
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	n := &notes{}
	c.OnNotification(n.add)
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "demoserver-test", Version: "0"}
	callCtx, callCancel := context.WithTimeout(ctx, patience)
	defer callCancel()
	result, err := c.Initialize(callCtx, init)
	if err != nil {
		t.Fatalf("Initialize: %v (stderr: %s)", err, srv.stderr.String())
	}
	return &session{InitializeResult: result, c: c, notes: n, srv: srv, user: user}
}

// call calls a tool and fails the test on a protocol error.
func (s *session) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	result, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("calling %s: %v (stderr: %s)", name, err, s.srv.stderr.String())
	}
	return result
}

// text returns the text of a result's single text item.
func text(t *testing.T, result *mcp.CallToolResult) string {
	t.Helper()
	if len(result.Content) != 1 {
		t.Fatalf("want one content item, got %d: %+v", len(result.Content), result.Content)
	}
	tc, ok := result.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", result.Content[0])
	}
	return tc.Text
}

// wantText checks a successful result's text.
func wantText(t *testing.T, result *mcp.CallToolResult, want string) {
	t.Helper()
	if result.IsError {
		t.Fatalf("unexpected tool error: %s", text(t, result))
	}
	if got := text(t, result); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// stdoutLines returns the lines the server wrote to stdout so far.
func (s *served) stdoutLines() []string {
	var lines []string
	scanner := bufio.NewScanner(strings.NewReader(s.stdout.String()))
	scanner.Buffer(nil, 256<<20)
	for scanner.Scan() {
		lines = append(lines, scanner.Text())
	}
	return lines
}

func (s *session) toolNames(t *testing.T) map[string]mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	names := map[string]mcp.Tool{}
	for _, tool := range list.Tools {
		names[tool.Name] = tool
	}
	return names
}

func describe(names map[string]mcp.Tool) string {
	var b strings.Builder
	for name := range names {
		fmt.Fprintf(&b, "%s ", name)
	}
	return b.String()
}
