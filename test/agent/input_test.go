package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// answerAfter accepts a form with content after sleeping d.
func answerAfter(d time.Duration, action mcp.ElicitationResponseAction, content map[string]any) func(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return func(ctx context.Context, _ mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}, nil
	}
}

// The server's form reaches the host, the person's answer reaches the
// server, and the metadata says what happened without the values.
func TestElicitationRelayed(t *testing.T) {
	t.Parallel()
	var asked mcp.ElicitationRequest
	answer := answerAfter(300*time.Millisecond, mcp.ElicitationResponseActionAccept, map[string]any{"name": "Ada", "colour": "blue"})
	h := startWith(t, hostConfig{elicit: func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
		asked = req
		return answer(ctx, req)
	}})
	connectDemo(t, h, "")

	res := h.call(t, "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true))
	text := joinText(res)
	if res.IsError {
		t.Fatalf("ask_name failed:\n%s", text)
	}
	wantContains(t, "ask_name", text, "accepted: name=Ada colour=blue")
	if asked.Params.Message != "What should the demo call you? Pick a name and a colour." {
		t.Errorf("the host was asked %q", asked.Params.Message)
	}

	lines, meta := metadata(t, res)
	round := findPrefix(lines, "Input round 1: elicitation")
	if round == "" {
		t.Fatalf("no \"Input round 1: elicitation\" line in the metadata:\n%s", strings.Join(lines, "\n"))
	}
	wantContains(t, "input round line", round, `"What should the demo call you?"`, ": accepted", "(changed from the defaults: name)")
	wantNotContains(t, "input round line", round, "colour", "Ada")
	if findPrefix(lines, "Input round 2") != "" {
		t.Errorf("one form, but more than one round:\n%s", strings.Join(lines, "\n"))
	}
	if w, _ := meta["input_wait_ms"].(float64); w <= 0 {
		t.Errorf("input_wait_ms = %v, want > 0 after a 300 ms form", meta["input_wait_ms"])
	}
	ir, _ := meta["input_requests"].(map[string]any)
	if n, _ := ir["total"].(float64); n != 1 {
		t.Errorf("input_requests.total = %v, want 1", ir["total"])
	}
	if n, _ := ir["elicitation"].(float64); n != 1 {
		t.Errorf("input_requests.elicitation = %v, want 1", ir["elicitation"])
	}
	if n, ok := ir["sampling"].(float64); !ok || n != 0 {
		t.Errorf("input_requests.sampling = %v, want 0", ir["sampling"])
	}
	rounds, _ := ir["rounds"].([]any)
	if len(rounds) == 1 {
		r, _ := rounds[0].(map[string]any)
		if r["kind"] != "elicitation" || r["outcome"] != "accepted" {
			t.Errorf("round = %v, want kind elicitation, outcome accepted", r)
		}
		if ch, _ := r["changed_fields"].([]any); len(ch) != 1 || ch[0] != "name" {
			t.Errorf("changed_fields = %v, want [name]", r["changed_fields"])
		}
	} else {
		t.Errorf("input_requests.rounds = %v, want one round", ir["rounds"])
	}

	// Sampling is relayed too.
	res = h.call(t, "call_mcp_primitive", tool("ask_llm", map[string]any{"prompt": "Say hello. Please."}, "include_metadata", true))
	text = joinText(res)
	if res.IsError {
		t.Fatalf("ask_llm failed:\n%s", text)
	}
	wantContains(t, "ask_llm", text, "the model says hello", "Input round 1: sampling", ": answered")
}

// The round line of a sampling request names its question (the prompt's
// first sentence), as the round line of a form does.
func TestSamplingRoundNamesQuestion(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("ask_llm", map[string]any{"prompt": "Say hello. Please."}, "include_metadata", true))
	if res.IsError {
		t.Fatalf("ask_llm failed:\n%s", joinText(res))
	}
	lines, _ := metadata(t, res)
	round := findPrefix(lines, "Input round 1: sampling")
	if want := `Input round 1: sampling "Say hello.": answered`; !strings.HasPrefix(round, want) {
		t.Errorf("round line %q, want prefix %q", round, want)
	}
}

func TestElicitationDeclined(t *testing.T) {
	t.Parallel()
	h := startWith(t, hostConfig{elicit: answerAfter(0, mcp.ElicitationResponseActionDecline, nil)})
	connectDemo(t, h, "")
	res := h.call(t, "call_mcp_primitive", tool("ask_name", nil, "include_metadata", true))
	text := joinText(res)
	if res.IsError {
		t.Fatalf("ask_name failed:\n%s", text)
	}
	if got := res.Content[len(res.Content)-1]; !isText(got, "declined") {
		t.Errorf("the tool's answer should be %q; got:\n%s", "declined", text)
	}
	wantContains(t, "metadata", text, "Input round 1: elicitation", ": declined")
}

// A host that declared no elicitation: run-mcp says so and declines for it
// rather than leaving the server hanging.
func TestElicitationNotDeclared(t *testing.T) {
	t.Parallel()
	h := startWith(t, hostConfig{noElicitation: true})
	reply := connectDemo(t, h, "")
	wantLines(t, "connect reply", reply,
		"Client input forwarded to your host: elicitation forms no, URL mode no, sampling yes; roots answered by run-mcp (0 configured)")
	res := h.call(t, "call_mcp_primitive", tool("ask_name", nil))
	if text := joinText(res); res.IsError || text != "declined" {
		t.Errorf("ask_name under a host without elicitation: got %q (isError %v), want \"declined\"", text, res.IsError)
	}
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status", status, "elicitation forms no, URL mode no, sampling yes")
}

// timeout_ms counts server time: a person taking longer than the budget
// to answer does not time the call out, a slow server does.
func TestTimeoutIsServerTime(t *testing.T) {
	t.Parallel()
	h := startWith(t, hostConfig{elicit: answerAfter(1500*time.Millisecond, mcp.ElicitationResponseActionAccept,
		map[string]any{"name": "Ada", "colour": "red"})})
	connectDemo(t, h, "")

	res := h.call(t, "call_mcp_primitive", tool("ask_name", nil, "timeout_ms", 1000, "include_metadata", true))
	text := joinText(res)
	if res.IsError {
		t.Fatalf("a 1.5 s form under timeout_ms 1000 failed; the client's wait must not count:\n%s", text)
	}
	wantContains(t, "ask_name", text, "accepted: name=Ada colour=red", "(changed from the defaults: colour, name)")

	began := time.Now()
	text = mustFail(t, h, "call_mcp_primitive", tool("slow", map[string]any{"seconds": 3}, "timeout_ms", 300))
	took := time.Since(began)
	wantContains(t, "slow under timeout_ms 300", text, "timed out after")
	if took > 2500*time.Millisecond {
		t.Errorf("the 300 ms timeout returned after %s; it should not wait for the 3 s tool", took)
	}
	// The connection survives a timeout.
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "still here"})); got != "echo: still here" {
		t.Errorf("echo after a timeout: got %q", got)
	}
}

func findPrefix(lines []string, prefix string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func isText(c mcp.Content, want string) bool {
	tc, ok := mcp.AsTextContent(c)
	return ok && tc.Text == want
}
