//go:build !windows

package hostile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goWords is what no user may see: the name of a Go type (mcp.Tool,
// session.Request) or encoding/json's words for one.
var goWords = regexp.MustCompile(`\b[a-z]+\.[A-Z][A-Za-z]+\b|Go (struct field|value of type)|interface \{\}|struct \{`)

func wantNoGoWords(t *testing.T, what, text string) {
	t.Helper()
	if m := goWords.FindString(text); m != "" {
		t.Errorf("%s names a Go type (%q):\n%s", what, m, text)
	}
}

// A server whose answers have the wrong JSON types is told so in JSON's
// words (the field, what it is, what goes there), never encoding/json's.
func TestAServersWrongTypesAreSaidInJSONWords(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, tc := range []struct {
		lie  string
		code int
		says string
	}{
		{"init", 69, "the server's answer to initialize is not an initialize result: capabilities.tools is a string where an object goes"},
		{"tools", 1, "tools/list: the page the server sent is not a list of tools: it is a string, not an array"},
		{"message", 0, "Warning: 1 transport error(s): JSON that does not fit a JSON-RPC message: method is a number where a string"},
	} {
		r := run(t, tmp, "list-tools", "--", liar, "--lie", tc.lie)
		r.want(t, tc.code, tc.says)
		wantNoGoWords(t, "--lie "+tc.lie, r.stderr)
		raw := run(t, tmp, "list-tools", "--raw", "--", liar, "--lie", tc.lie)
		wantNoGoWords(t, "--lie "+tc.lie+" --raw", raw.stdout)
	}
}

// A request with an empty method is still a request: its sender gets an
// error answer for its id (-32600), not silence.
func TestAnEmptyMethodRequestIsAnswered(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), "list-tools", "--show-stderr", "--", liar, "--lie", "empty-method")
	r.want(t, 0, `liar: answered: {"jsonrpc":"2.0","id":"liar-empty-method","error":{"code":-32600,`)
}

// A host whose messages have the wrong JSON types, or that answers a
// server's form with garbage, is told what is wrong in JSON's words, and so
// is the agent whose call the form belonged to.
func TestAHostsWrongTypesAreSaidInJSONWords(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	h := startHostWith(t, tmp, map[string]any{"elicitation": map[string]any{}})

	h.writeRaw([]byte(`{"jsonrpc":"2.0","id":7,"method":5}` + "\n"))
	m := h.await(nil)
	msg := fmt.Sprint(m["error"])
	if !strings.Contains(msg, "method is a number where a string goes") {
		t.Errorf("a method that is a number: %s", msg)
	}
	wantNoGoWords(t, "the answer to a numeric method", msg)

	h.writeRaw([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}` + "\n"))
	msg = fmt.Sprint(h.await(8)["error"])
	if !strings.Contains(msg, "name is a number where a string goes") {
		t.Errorf("a tool name that is a number: %s", msg)
	}
	wantNoGoWords(t, "the answer to a numeric tool name", msg)

	if text, isErr := h.call("connect_to_mcp", map[string]any{"command": bin, "args": []string{"demo-server"}}); isErr {
		t.Fatalf("connect the demo server: %s", text)
	}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{
		"name": "call_mcp_primitive", "arguments": map[string]any{"type": "tool", "name": "ask_name", "include_metadata": true}}})
	var reply map[string]any
	deadline := time.After(patience)
	for reply == nil {
		select {
		case m, ok := <-h.msgs:
			if !ok {
				t.Fatalf("the agent server closed stdout\n%s", h.stderr.String())
			}
			switch {
			case m["method"] == "elicitation/create":
				id, _ := json.Marshal(m["id"])
				h.writeRaw([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":"nope","message":["garbage"]}}`+"\n", id)))
			case fmt.Sprint(m["id"]) == "9":
				reply = m
			}
		case <-deadline:
			t.Fatalf("no answer to the call within %s\n%s", patience, h.stderr.String())
		}
	}
	text, _ := json.Marshal(reply)
	if !strings.Contains(string(text), "error.code is a string where a whole number goes") {
		t.Errorf("the call does not say what was wrong with the host's answer:\n%s", text)
	}
	wantNoGoWords(t, "the call whose form the host answered with garbage", string(text))
	wantNoGoWords(t, "the agent server's stderr", h.stderr.String())
}

// A host that sends an object as a JSON-RPC id is refused with -32600 and
// id null, as JSON-RPC 2.0 says of an invalid request, and the server
// serves on.
func TestAnObjectIDIsRefused(t *testing.T) {
	t.Parallel()
	h := startHost(t, t.TempDir())
	h.writeRaw([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n"))
	m := h.await(nil)
	e, _ := m["error"].(map[string]any)
	if code, _ := e["code"].(float64); code != -32600 || m["id"] != nil {
		t.Errorf("an object id must get -32600 with id null, got %v", m)
	}
	if _, present := m["id"]; !present {
		t.Errorf("the refusal must carry \"id\": null, got %v", m)
	}
	h.send(map[string]any{"jsonrpc": "2.0", "id": 10, "method": "ping"})
	if m := h.await(10); m["result"] == nil {
		t.Errorf("after the refusal, a ping is not answered: %v", m)
	}
}
