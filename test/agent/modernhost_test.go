package agent

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startRawModern is startRaw for a host that speaks 2026-07-28: no handshake,
// and the era's _meta on every request (modernCall).
func startRawModern(t *testing.T, env ...string) *linesHost {
	t.Helper()
	cmd := exec.Command(bin, "-o", t.TempDir())
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
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

// A 2026-07-28 host's time to answer counts as input wait, never as server
// time: a form held longer than the call's timeout_ms is answered and the
// call completes. A call that ends while its question waits (here its
// connection is disconnected) voids its requestState, and a retry that
// comes late is told why in words.
func TestModernHostFormHeldPastTheTimeout(t *testing.T) {
	t.Parallel()
	h := startRawModern(t)
	h.send(t, modernCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}, nil))
	h.await(t, "c")
	h.send(t, modernCall("1", "call_mcp_primitive", tool("ask_name", nil, "timeout_ms", 300, "include_metadata", true), nil))
	key, _, state := inputRequired(t, h.await(t, "1"))
	// The person takes longer than timeout_ms; the call waits on its
	// question meanwhile.
	waited := time.Now()
	for n := 0; time.Since(waited) < 600*time.Millisecond; n++ {
		id := "s" + strconv.Itoa(n)
		h.send(t, modernCall(id, "mcp_server_status", map[string]any{}, nil))
		if text, _ := resultText(t, h.await(t, id)); !strings.Contains(text, "Calls in flight: 1") {
			t.Fatalf("the call waiting on its question is not in flight:\n%s", text)
		}
	}
	h.send(t, modernCall("2", "call_mcp_primitive", tool("ask_name", nil, "timeout_ms", 300, "include_metadata", true), map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"name": "Bo", "colour": "green"}}}}))
	text, isErr := resultText(t, h.await(t, "2"))
	if isErr || !strings.Contains(text, "accepted: name=Bo colour=green") {
		t.Fatalf("the answered call: %q (error %v)", text, isErr)
	}

	h.send(t, modernCall("3", "call_mcp_primitive", tool("ask_name", nil), nil))
	key, _, state = inputRequired(t, h.await(t, "3"))
	h.send(t, modernCall("d", "disconnect_from_mcp", map[string]any{}, nil))
	h.await(t, "d")
	h.send(t, modernCall("4", "call_mcp_primitive", tool("ask_name", nil), map[string]any{"requestState": state,
		"inputResponses": map[string]any{key: map[string]any{"action": "decline"}}}))
	if text, isErr := resultText(t, h.await(t, "4")); !isErr || !strings.Contains(text, "has ended: the call ended before the host answered") {
		t.Errorf("the retry of a call that ended: %q", text)
	}
	b, _ := json.Marshal(state)
	if len(b) < 30 {
		t.Errorf("requestState %s is too short to be unguessable", b)
	}
}
