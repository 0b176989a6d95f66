package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/test/targets"
)

// What the server sent is what the agent sees: definitions in connect's
// include sections and in list_mcp_primitives keep every key, its order
// and its number literals; numbers in arguments and results keep every
// digit; the host's request ids come back exactly as sent.

const big = "12345678901234567890"

func compactJSON(t *testing.T, what string, v []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, v)
	}
	return b.String()
}

// fixtureItems is what the schemas fixture sends for kind, as one compact
// JSON array.
func fixtureItems(t *testing.T, kind string) string {
	t.Helper()
	out, err := exec.Command(schemasServer, "-dump", kind).Output()
	if err != nil {
		t.Fatalf("schemas -dump %s: %v", kind, err)
	}
	return compactJSON(t, "the fixture's "+kind, out)
}

// block returns, compacted, the JSON array that follows the heading line
// "--- <title> ---" in a reply.
func block(t *testing.T, reply, title string) string {
	t.Helper()
	i := strings.Index(reply, "\n--- "+title+" ---\n")
	if i < 0 {
		t.Fatalf("the reply has no %q section:\n%s", title, reply)
	}
	rest := reply[i+1:]
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	var raw json.RawMessage
	if err := json.NewDecoder(strings.NewReader(rest)).Decode(&raw); err != nil {
		t.Fatalf("the %s section is not JSON: %v\n%s", title, err, reply)
	}
	return compactJSON(t, title, raw)
}

var sections = []struct{ title, kind string }{
	{"Tools", "tools"}, {"Resources", "resources"}, {"Resource Templates", "resourceTemplates"}, {"Prompts", "prompts"},
}

func wantSections(t *testing.T, what, reply string) {
	t.Helper()
	for _, s := range sections {
		if got, want := block(t, reply, s.title), fixtureItems(t, s.kind); got != want {
			t.Errorf("%s %s differ from what the server sent:\n got  %s\n sent %s", what, s.title, got, want)
		}
	}
}

func TestFaithfulConnectInclude(t *testing.T) {
	t.Parallel()
	h := start(t)
	reply := mustText(t, h, "connect_to_mcp", map[string]any{"command": schemasServer,
		"include": []any{"tools", "resources", "resource_templates", "prompts"}})
	wantSections(t, "connect include", reply)
	wantNotContains(t, "connect include", reply, `"required": []`, `"annotations": {}`, `"properties": {}`)
}

func TestFaithfulListPrimitives(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": schemasServer})
	wantSections(t, "list_mcp_primitives", mustText(t, h, "list_mcp_primitives", map[string]any{}))

	// A name filter keeps the entries whole.
	filtered := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "name": "schema"})
	var all []json.RawMessage
	_ = json.Unmarshal([]byte(fixtureItems(t, "tools")), &all)
	if got, want := block(t, filtered, "Tools"), "["+string(all[0])+"]"; got != want {
		t.Errorf("filtered tools differ from what the server sent:\n got  %s\n sent %s", got, want)
	}

	// A page is the page as the server sent it, its cursor included, under
	// the kind's heading like every listing.
	page := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "cursor": "page2"})
	body, ok := strings.CutPrefix(page, "--- Tools ---\n")
	if !ok {
		t.Errorf("a page lacks the --- Tools --- heading:\n%s", page)
	}
	if got, want := compactJSON(t, "the page", []byte(body)), `{"tools":[`+string(all[1])+","+string(all[2])+`]}`; got != want {
		t.Errorf("page 2 differs from what the server sent:\n got  %s\n sent %s", got, want)
	}
}

func TestFaithfulCallArgumentDigits(t *testing.T) {
	t.Parallel()
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": schemasServer})
	got := mustText(t, h, "call_mcp_primitive", tool("echo_raw", map[string]any{"n": json.Number(big)}))
	if want := `{"n":` + big + `}`; got != want {
		t.Errorf("the server received %s, want %s", got, want)
	}
}

// rawHost speaks JSON-RPC to run-mcp over its stdio and reads the exact
// bytes of each answer, as a host's transport sees them.
type rawHost struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawHost(t *testing.T) *rawHost {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-o", t.TempDir())
	cmd.WaitDelay = 5 * time.Second
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(callTimeout):
			cancel()
			<-done
		}
		cancel()
	})
	return &rawHost{in: in, out: bufio.NewReader(out)}
}

// ask sends one request with the id written as idLiteral and returns the
// answer carrying that id, byte for byte; an answer whose id is any other
// text (1 for 1.0, a rounded integer) is never taken for it.
func (h *rawHost) ask(t *testing.T, idLiteral, method string, params any) []byte {
	t.Helper()
	p, _ := json.Marshal(params)
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`+"\n", idLiteral, method, p)
	type line struct {
		b   []byte
		err error
	}
	got := make(chan line, 1)
	for {
		go func() {
			b, err := h.out.ReadBytes('\n')
			got <- line{b, err}
		}()
		var l line
		select {
		case l = <-got:
		case <-time.After(callTimeout):
			t.Fatalf("%s (id %s): no answer with that id within %s", method, idLiteral, callTimeout)
		}
		if l.err != nil {
			t.Fatalf("%s (id %s): %v", method, idLiteral, l.err)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l.b, &m) == nil && m.Method == "" && string(m.ID) == idLiteral {
			return l.b
		}
		if m.Method == "" && len(m.ID) > 0 {
			t.Fatalf("%s (id %s): answered under id %s instead:\n%s", method, idLiteral, m.ID, l.b)
		}
	}
}

func (h *rawHost) notify(method string) {
	fmt.Fprintf(h.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
}

// resultOf is the "result" of an answer, compacted, or a failure.
func resultOf(t *testing.T, answer []byte) (text string, structured string) {
	t.Helper()
	var m struct {
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &m); err != nil || m.Result == nil {
		t.Fatalf("not a result: %v\n%s", err, answer)
	}
	if m.Result.IsError || len(m.Result.Content) == 0 {
		t.Fatalf("an error result:\n%s", answer)
	}
	var texts []string
	for _, c := range m.Result.Content {
		texts = append(texts, c.Text)
	}
	s := ""
	if len(m.Result.StructuredContent) > 0 {
		s = compactJSON(t, "structuredContent", m.Result.StructuredContent)
	}
	return strings.Join(texts, "\n"), s
}

func TestFaithfulHostIDs(t *testing.T) {
	t.Parallel()
	h := startRawHost(t)
	h.ask(t, big, "initialize", map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-host", "version": "0"}})
	h.notify("notifications/initialized")
	for _, id := range []string{"1.0", `"x"`, "-0", "98765432109876543210"} {
		h.ask(t, id, "tools/list", map[string]any{})
	}
	// A tool call, under a big id, whose arguments carry a big number.
	answer := h.ask(t, "12345678901234567891", "tools/call", map[string]any{"name": "call_mcp_primitive",
		"arguments": map[string]any{"type": "tool", "name": "echo_raw", "arguments": map[string]any{"n": json.Number(big)},
			"auto_connect": map[string]any{"command": schemasServer}}})
	text, structured := resultOf(t, answer)
	if want := `{"n":` + big + `}`; text != want || structured != `{"arguments":`+want+`}` {
		t.Errorf("the server received and answered %s / %s, want %s both times:\n%s", text, structured, want, answer)
	}
	// A result run-mcp rewrites (its long text spilled) keeps the numbers of
	// its structuredContent.
	answer = h.ask(t, "7", "tools/call", map[string]any{"name": "call_mcp_primitive",
		"arguments": map[string]any{"type": "tool", "name": "echo_raw", "max_text_length": 100,
			"arguments": map[string]any{"n": json.Number(big), "pad": 200}}})
	text, structured = resultOf(t, answer)
	if want := `{"arguments":{"n":` + big + `,"pad":200}}`; structured != want {
		t.Errorf("structuredContent of an intercepted result is %s, the server sent %s:\n%s", structured, want, answer)
	}
	if !strings.Contains(text, "[truncated at ") {
		t.Errorf("the long text was not intercepted, so this checked nothing:\n%s", answer)
	}
}

// server-everything's tools reach the agent as server-everything sends them.
func TestFaithfulEverythingInclude(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	direct := directTools(t, cmd)
	h := start(t)
	args := make([]any, 0, len(cmd)-1)
	for _, a := range cmd[1:] {
		args = append(args, a)
	}
	mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": args})
	// The include block falls back to names past 20,000 characters, so the
	// full entries are compared one by one through the name filter.
	var tools []json.RawMessage
	_ = json.Unmarshal([]byte(direct), &tools)
	for _, want := range tools {
		var name struct{ Name string }
		_ = json.Unmarshal(want, &name)
		reply := mustText(t, h, "list_mcp_primitives", map[string]any{"type": []any{"tools"}, "name": name.Name})
		var listed []json.RawMessage
		_ = json.Unmarshal([]byte(block(t, reply, "Tools")), &listed)
		found := false
		for _, l := range listed {
			if compactJSON(t, name.Name, l) == compactJSON(t, name.Name, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("tool %s differs from what server-everything sent:\n got  %s\n sent %s", name.Name, listed, compactJSON(t, "sent", want))
		}
	}
}

// directTools is server-everything's tools/list as a bare client reads it
// (declaring what run-mcp declares), compacted.
func directTools(t *testing.T, cmd []string) string {
	t.Helper()
	c := exec.Command(cmd[0], cmd[1:]...)
	in, _ := c.StdinPipe()
	outPipe, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopServer(in, c)
	h := &rawHost{in: in, out: bufio.NewReader(outPipe)}
	h.ask(t, "1", "initialize", map[string]any{"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities": map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
			"roots": map[string]any{"listChanged": true}},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}})
	h.notify("notifications/initialized")
	var page struct {
		Result struct {
			Tools      json.RawMessage `json:"tools"`
			NextCursor string          `json:"nextCursor"`
		} `json:"result"`
	}
	if err := json.Unmarshal(h.ask(t, "2", "tools/list", map[string]any{}), &page); err != nil {
		t.Fatal(err)
	}
	if page.Result.NextCursor != "" {
		t.Fatalf("server-everything pages its tools now; follow the cursor here")
	}
	return compactJSON(t, "server-everything's tools", page.Result.Tools)
}

// stopServer closes a server's stdin and kills it if it has not exited a
// moment later: server-everything keeps timers running after stdin EOF.
func stopServer(in io.Closer, c *exec.Cmd) {
	_ = in.Close()
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = c.Process.Kill()
		<-done
	}
}
