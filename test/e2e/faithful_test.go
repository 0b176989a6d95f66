//go:build !windows

package e2e

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

	"github.com/run-mcp/run-mcp/test/targets"
)

// What the server sent is what the user sees: definitions keep every key
// ($schema, allOf, if/then/else, $ref/$defs, x-*), their order and their
// number literals, and nothing is added; numbers in arguments and results
// keep every digit.

// compact is the JSON text v with insignificant whitespace removed: two
// texts compact to the same bytes only if they hold the same values, keys
// in the same order and numbers written the same way.
func compact(t *testing.T, what string, v []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, v)
	}
	return b.String()
}

// fixtureDump is what the schemas fixture sends for kind, one entry per item.
func fixtureDump(t *testing.T, kind string) []json.RawMessage {
	t.Helper()
	out, err := exec.Command(schemasServer, "-dump", kind).Output()
	if err != nil {
		t.Fatalf("schemas -dump %s: %v", kind, err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(out, &items); err != nil {
		t.Fatalf("schemas -dump %s: %v", kind, err)
	}
	return items
}

// sameItems fails unless got holds exactly the entries of want, each
// byte-identical once compacted.
func sameItems(t *testing.T, what string, got, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, the server sent %d", what, len(got), len(want))
	}
	for i := range want {
		g, w := compact(t, what, got[i]), compact(t, what, want[i])
		if g != w {
			t.Errorf("%s entry %d differs from what the server sent:\n got  %s\n sent %s", what, i, g, w)
		}
	}
}

// listed decodes a list command's stdout: a JSON array (3.0's shape), or
// with --raw an object {"tools": […], "pages": …} and the like.
func (r result) listed(t *testing.T) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	r.json(t, &items)
	return items
}

// rawListed decodes list --raw: every kind's entries by key.
func (r result) rawListed(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	r.json(t, &m)
	return m
}

func items(t *testing.T, raw json.RawMessage) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("not an array: %v: %s", err, raw)
	}
	return out
}

func TestFaithfulListTools(t *testing.T) {
	t.Parallel()
	r := run(t, "list-tools", "--", schemasServer)
	r.wantCode(t, 0)
	// Two pages (nextCursor) make one list, each entry as sent.
	sameItems(t, "list-tools", r.listed(t), fixtureDump(t, "tools"))
	for _, kw := range []string{`"$schema"`, `"allOf"`, `"anyOf"`, `"oneOf"`, `"if"`, `"then"`, `"else"`, `"$ref"`, `"$defs"`, `"x-custom"`, "12345678901234567890", "1.0"} {
		if !strings.Contains(r.stdout, kw) {
			t.Errorf("list-tools dropped %s\n%s", kw, r)
		}
	}
	// Nothing the server never sent.
	for _, added := range []string{`"required": []`, `"annotations": {}`, `"properties": {}`} {
		if strings.Contains(r.stdout, added) {
			t.Errorf("list-tools added %s, which the server never sent\n%s", added, r)
		}
	}
}

func TestFaithfulDescribe(t *testing.T) {
	t.Parallel()
	for _, want := range fixtureDump(t, "tools") {
		var name struct{ Name string }
		_ = json.Unmarshal(want, &name)
		r := run(t, "describe", name.Name, "--", schemasServer)
		r.wantCode(t, 0)
		if g, w := compact(t, "describe", []byte(r.stdout)), compact(t, "the fixture", want); g != w {
			t.Errorf("describe %s differs from what the server sent:\n got  %s\n sent %s", name.Name, g, w)
		}
	}
}

func TestFaithfulListResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	r := run(t, "list-resources", "--", schemasServer)
	r.wantCode(t, 0)
	sameItems(t, "list-resources", r.listed(t), fixtureDump(t, "resources"))
	// The templates are under --raw, beside the resources.
	r = run(t, "list-resources", "--raw", "--", schemasServer)
	r.wantCode(t, 0)
	got := r.rawListed(t)
	sameItems(t, "list-resources --raw resources", items(t, got["resources"]), fixtureDump(t, "resources"))
	sameItems(t, "list-resources --raw resourceTemplates", items(t, got["resourceTemplates"]), fixtureDump(t, "resourceTemplates"))

	r = run(t, "list-prompts", "--", schemasServer)
	r.wantCode(t, 0)
	sameItems(t, "list-prompts", r.listed(t), fixtureDump(t, "prompts"))
}

// echoed is what echo_raw answered: the arguments' bytes as the server
// received them, as text and (call --raw) inside structuredContent.
func (r result) echoed(t *testing.T) (text, structured string) {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if strings.HasPrefix(strings.TrimSpace(r.stdout), "[") {
		r.json(t, &res.Content) // call prints the content array
		res.StructuredContent = json.RawMessage("null")
	} else {
		r.json(t, &res)
	}
	if len(res.Content) == 0 {
		t.Fatalf("no content\n%s", r)
	}
	return res.Content[0].Text, compact(t, "structuredContent", res.StructuredContent)
}

func TestFaithfulNumbersInArguments(t *testing.T) {
	t.Parallel()
	const big = "12345678901234567890"
	for _, tc := range []struct {
		name  string
		words []string
		sent  string
	}{
		{"shorthand", []string{"n:=" + big}, `{"n":` + big + `}`},
		{"JSON argument", []string{`{"n":` + big + `}`}, `{"n":` + big + `}`},
		{"decimal literal", []string{"n:=1.50"}, `{"n":1.50}`},
		// A result run-mcp rewrites (the long text is spilled) keeps the
		// numbers of its structuredContent.
		{"intercepted result", []string{"n:=" + big, "pad:=200", "--max-text", "100"}, `{"n":` + big + `,"pad":200}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, append(append([]string{"call", "echo_raw", "--raw"}, tc.words...), "--", schemasServer)...)
			r.wantCode(t, 0)
			text, structured := r.echoed(t)
			if text != tc.sent {
				t.Errorf("the server received %s, want %s exactly as typed\n%s", text, tc.sent, r)
			}
			if want := `{"arguments":` + tc.sent + `}`; structured != want {
				t.Errorf("structuredContent came out as %s, the server sent %s\n%s", structured, want, r)
			}
		})
	}
}

// rawEnvelopeEvidence is the part of a --raw envelope about the server's
// output around the result.
type rawEnvelopeEvidence struct {
	Stderr      []string `json:"stderr"`
	StdoutNoise []string `json:"stdout_noise"`
}

// A one-shot server lived for its call alone: what it printed at start-up
// (a console.log, a banner on stderr) is part of --raw and --show-stderr.
func TestFaithfulRawHasStartupOutput(t *testing.T) {
	t.Parallel()
	target := demo("--stdout-noise", "console.log at start-up", "--stderr-flood", "3")
	r := run(t, args([]string{"call", "echo", "message=hi", "--raw", "--show-stderr"}, target)...)
	r.wantCode(t, 0)
	r.wantStderr(t, "Warning: The server wrote 1 non-JSON line(s) to stdout", "[server stderr] flood line 1", "[server stderr] flood line 3")
	var env rawEnvelopeEvidence
	r.json(t, &env)
	if len(env.StdoutNoise) != 1 || env.StdoutNoise[0] != "console.log at start-up" {
		t.Errorf("stdout_noise = %+v, want the start-up console.log the Warning counted\n%s", env.StdoutNoise, r)
	}
	if !strings.Contains(strings.Join(env.Stderr, "\n"), "flood line 1") {
		t.Errorf("stderr = %q, want the lines written at start-up\n%s", env.Stderr, r)
	}
	// The result's own keys come first, as the server sent them.
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), "{\n  \"content\": [") {
		t.Errorf("the envelope does not start with the result's content\n%s", r)
	}
}

// A session's server lives on: a call's --raw holds only what it wrote
// during that call.
func TestFaithfulSessionRawOnlyDuringCall(t *testing.T) {
	s := newSession(t, "faithful")
	target := demo("--stdout-noise", "console.log at start-up", "--stderr-flood", "3")
	s.run(args([]string{"call", "echo", "message=first", "--session", "faithful"}, target)...).wantCode(t, 0)
	r := s.run("call", "echo", "message=hi", "--raw", "--session", "faithful")
	r.wantCode(t, 0)
	var env rawEnvelopeEvidence
	r.json(t, &env)
	if len(env.StdoutNoise) != 0 {
		t.Errorf("stdout_noise = %+v, want none: the noise came at start-up, before this call\n%s", env.StdoutNoise, r)
	}
	if strings.Contains(strings.Join(env.Stderr, "\n"), "flood line") {
		t.Errorf("stderr = %q, want only what the server wrote during this call\n%s", env.Stderr, r)
	}
}

// rawToolsList asks a server for its tools over stdio as a bare client,
// declaring what run-mcp declares, and returns every entry as sent.
func rawToolsList(t *testing.T, cmd []string) []json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	in, _ := c.StdinPipe()
	outPipe, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopServer(in, c)
	out := bufio.NewReader(outPipe)
	request := func(id int, method string, params any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		fmt.Fprintln(in, string(b))
		for {
			line, err := out.ReadBytes('\n')
			if err != nil && err != io.EOF || len(line) == 0 {
				t.Fatalf("%s: no answer: %v", method, err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				return m.Result
			}
		}
	}
	request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "clientInfo": map[string]any{"name": "raw", "version": "0"},
		"capabilities": map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}},
			"roots": map[string]any{"listChanged": true}}})
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var tools []json.RawMessage
	cursor := ""
	for id := 2; ; id++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(request(id, "tools/list", params), &page); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			return tools
		}
	}
}

func TestFaithfulEverythingTools(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	want := rawToolsList(t, cmd)
	r := run(t, append([]string{"list-tools", "--"}, cmd...)...)
	r.wantCode(t, 0)
	sameItems(t, "server-everything list-tools", r.listed(t), want)
}

// The fixture's own check: its tools come in two pages, so a listing that
// ignored nextCursor would miss two of them.
func TestFaithfulFixturePages(t *testing.T) {
	t.Parallel()
	if got := rawToolsList(t, []string{schemasServer}); len(got) != 3 {
		t.Fatalf("a bare client read %d tools from the fixture, want 3 over two pages", len(got))
	}
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

// On a 2026-07-28 connection the client drives the call (input_required
// rounds); what it prints is still the server's result as sent: its key
// order (structuredContent first here) and every digit.
func TestFaithfulModernEra(t *testing.T) {
	t.Parallel()
	const big = "12345678901234567890"
	content := `[{"type":"text","text":"{\"n\":` + big + `}"}]`
	r := run(t, "call", "echo_raw", "n:="+big, "--protocol", "2026-07-28", "--", schemasServer, "-modern")
	r.wantCode(t, 0)
	if got := compact(t, "the content", []byte(r.stdout)); got != content {
		t.Errorf("the modern content changed on its way:\n got  %s\n sent %s", got, content)
	}
	// --raw: the whole result first, its keys in the server's order.
	r = run(t, "call", "echo_raw", "n:="+big, "--raw", "--protocol", "2026-07-28", "--", schemasServer, "-modern")
	r.wantCode(t, 0)
	want := `{"structuredContent":{"arguments":{"n":` + big + `}},"content":` + content + `,"resultType":"complete",`
	if got := compact(t, "the result", []byte(r.stdout)); !strings.HasPrefix(got, want) {
		t.Errorf("the modern result changed on its way:\n got  %s\n sent %s…", got, want)
	}
	r = run(t, "list-tools", "--protocol", "2026-07-28", "--", schemasServer, "-modern")
	r.wantCode(t, 0)
	sameItems(t, "modern list-tools", r.listed(t), fixtureDump(t, "tools"))
}

// Through a session daemon too, arguments and definitions arrive as sent.
func TestFaithfulSessionNumbersAndDefinitions(t *testing.T) {
	const big = "12345678901234567890"
	s := newSession(t, "digits")
	r := s.run("call", "echo_raw", "n:="+big, "--session", "digits", "--", schemasServer)
	r.wantCode(t, 0)
	if text, _ := r.echoed(t); text != `{"n":`+big+`}` {
		t.Errorf("through the session the server received %s\n%s", text, r)
	}
	r = s.run("call", "echo_raw", `{"n":`+big+`}`, "--session", "digits")
	r.wantCode(t, 0)
	if text, _ := r.echoed(t); text != `{"n":`+big+`}` {
		t.Errorf("through the session the server received %s\n%s", text, r)
	}
	r = s.run("list-tools", "--session", "digits")
	r.wantCode(t, 0)
	sameItems(t, "sessioned list-tools", r.listed(t), fixtureDump(t, "tools"))
}
