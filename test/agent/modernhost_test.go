package agent

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// startRawModern is startRaw for a host that speaks 2026-07-28: no handshake,
// and the era's _meta on every request (modernCall).
func startRawModern(t *testing.T) *linesHost {
	t.Helper()
	cmd := exec.Command(bin, "-o", t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start run-mcp: %v", err)
	}
	h := &linesHost{in: in, replies: map[string]map[string]any{}, arrived: make(chan struct{}, 1), read: make(chan struct{})}
	go h.readLoop(out)
	t.Cleanup(func() {
		_ = in.Close()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(callTimeout):
			_ = cmd.Process.Kill()
			<-waited
			t.Errorf("run-mcp did not exit after its stdin closed")
		}
		<-h.read
		if t.Failed() {
			t.Logf("run-mcp stderr:\n%s", stderr.String())
		}
	})
	return h
}

// modernCall is a tools/call of a 2026-07-28 host that declares forms;
// retry, if given, is {requestState, inputResponses}.
func modernCall(id, name string, args map[string]any, retry map[string]any) map[string]any {
	params := map[string]any{"name": name, "arguments": args, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
	}}
	for k, v := range retry {
		params[k] = v
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}
}

// inputRequired returns the one input request of an input_required reply
// (its key and params) and the requestState.
func inputRequired(t *testing.T, msg map[string]any) (key string, params map[string]any, state string) {
	t.Helper()
	res, _ := msg["result"].(map[string]any)
	if res["resultType"] != "input_required" {
		t.Fatalf("want an input_required result, got %v", msg)
	}
	reqs, _ := res["inputRequests"].(map[string]any)
	if len(reqs) != 1 {
		t.Fatalf("want one input request, got %v", reqs)
	}
	for k, v := range reqs {
		r, _ := v.(map[string]any)
		if r["method"] != "elicitation/create" {
			t.Fatalf("input request %s is %v, want elicitation/create", k, r["method"])
		}
		key, params = k, r["params"].(map[string]any)
	}
	state, _ = res["requestState"].(string)
	if state == "" {
		t.Fatalf("input_required without requestState: %v", res)
	}
	return key, params, state
}

// A target's form reaches a 2026-07-28 host as input_required; the retry
// with inputResponses answers it and gets the call's result; a requestState
// is good for one retry only, and run-mcp's state is not guessable from it.
func TestModernHostInputRequiredRoundTrip(t *testing.T) {
	t.Parallel()
	h := startRawModern(t)
	h.send(t, modernCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}, nil))
	if text, isErr := resultText(t, h.await(t, "c")); isErr || !strings.Contains(text, "elicitation forms yes, URL mode no, sampling no;") {
		t.Fatalf("connect: %q", text)
	}
	h.send(t, modernCall("1", "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true), nil))
	key, params, state := inputRequired(t, h.await(t, "1"))
	if msg, _ := params["message"].(string); !strings.HasPrefix(msg, "What should the demo call you?") {
		t.Errorf("the question: %v", params)
	}
	h.send(t, modernCall("bogus", "call_mcp_primitive", tool("ask_name", nil), map[string]any{"requestState": state + "x",
		"inputResponses": map[string]any{key: map[string]any{"action": "decline"}}}))
	if text, isErr := resultText(t, h.await(t, "bogus")); !isErr || !strings.Contains(text, "requestState names no call waiting for input") {
		t.Errorf("a made-up requestState: %q", text)
	}
	answer := map[string]any{"requestState": state, "inputResponses": map[string]any{key: map[string]any{"action": "accept",
		"content": map[string]any{"name": "Bo", "colour": "green"}}}}
	h.send(t, modernCall("2", "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true), answer))
	text, isErr := resultText(t, h.await(t, "2"))
	if isErr {
		t.Fatalf("the answered call: %q", text)
	}
	wantContains(t, "answered call", text, `Input round 1: elicitation "What should the demo call you?": accepted (changed from the defaults: colour, name)`,
		"accepted: name=Bo colour=green")
	h.send(t, modernCall("3", "call_mcp_primitive", tool("ask_name", nil), answer))
	if text, isErr := resultText(t, h.await(t, "3")); !isErr || !strings.Contains(text, "requestState names no call waiting for input") {
		t.Errorf("a requestState used twice: %q", text)
	}
}

// A question the host never answers does not keep the call forever: after
// the call's timeout it is cancelled and its requestState is void.
func TestModernHostAbandonedInputRequired(t *testing.T) {
	t.Parallel()
	h := startRawModern(t)
	h.send(t, modernCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}, nil))
	h.await(t, "c")
	h.send(t, modernCall("1", "call_mcp_primitive", tool("ask_name", nil, "timeout_ms", 300), nil))
	key, _, state := inputRequired(t, h.await(t, "1"))
	n := 0
	idle := eventually(10*time.Second, func() bool {
		n++
		id := "s" + strings.Repeat("x", n)
		h.send(t, modernCall(id, "mcp_server_status", map[string]any{}, nil))
		text, _ := resultText(t, h.await(t, id))
		return strings.Contains(text, "Calls in flight: 0")
	})
	if !idle {
		t.Fatal("the abandoned call is still in flight")
	}
	h.send(t, modernCall("2", "call_mcp_primitive", tool("ask_name", nil), map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "decline"}}}))
	if text, isErr := resultText(t, h.await(t, "2")); !isErr || !strings.Contains(text, "requestState names no call waiting for input") {
		t.Errorf("the retry of an abandoned call: %q", text)
	}
	b, _ := json.Marshal(state)
	if len(b) < 30 {
		t.Errorf("requestState %s is short enough to guess", b)
	}
}
