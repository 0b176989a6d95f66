package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// Client input is told per call, in both eras of the host and of the target
// (the rule is README's "Client input, per call"): a question that names its
// call (a 2026-07-28 target's input_required, an HTTP request on the call's
// own stream) pauses that call alone; a 2025-era stdio question with several
// calls in flight pauses all of them and is reported as shared, with no
// split of their time into server time and input wait.

// agentHostCall is one call of a phase of test/hosts/ts-v2/agenthost.mjs.
type agentHostCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// agentHostRun is what the host printed: each call's joined text by phase,
// and every form it was shown.
type agentHostRun struct {
	results [][]string
	forms   []string
}

// runAgentHost runs phases of concurrent calls under the TypeScript SDK v2
// host, speaking pin, answering each form after delay.
func runAgentHost(t *testing.T, pin string, delay time.Duration, phases ...[]agentHostCall) agentHostRun {
	t.Helper()
	in, err := json.Marshal(phases)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsNode(t), tsHostFile(t, "agenthost.mjs"), bin, "-o", t.TempDir())
	cmd.Env = append(os.Environ(), "HOST_PIN="+pin, "HOST_DELAY_MS="+strconv.Itoa(int(delay.Milliseconds())))
	cmd.Stdin = bytes.NewReader(in)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the host failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	run := agentHostRun{results: make([][]string, len(phases))}
	for i, p := range phases {
		run.results[i] = make([]string, len(p))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			Phase       *int            `json:"phase"`
			Call        int             `json:"call"`
			Result      json.RawMessage `json:"result"`
			Error       string          `json:"error"`
			Elicitation *string         `json:"elicitation"`
			ClientError string          `json:"clientError"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("the host printed a line that is not JSON: %q", sc.Text())
		}
		switch {
		case l.Phase != nil && l.Error != "":
			run.results[*l.Phase][l.Call] = "ERROR: " + l.Error
		case l.Phase != nil:
			run.results[*l.Phase][l.Call] = resultJoined(t, l.Result)
		case l.Elicitation != nil:
			run.forms = append(run.forms, *l.Elicitation)
		case l.ClientError != "":
			t.Errorf("the SDK client reported an error: %s", l.ClientError)
		}
	}
	return run
}

// hostEras are the two hosts: a 2026-07-28 one and a 2025 one.
var hostEras = []string{"2026-07-28", "2025-11-25"}

func demoConnect(name, protocol string) agentHostCall {
	return agentHostCall{Tool: "connect_to_mcp", Arguments: map[string]any{"command": bin, "args": demoArgs(), "name": name, "protocol": protocol}}
}

func askName(conn, label string, extra ...any) agentHostCall {
	a := map[string]any{"type": "tool", "name": "ask_name", "arguments": map[string]any{"label": label}, "connection": conn}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i].(string)] = extra[i+1]
	}
	return agentHostCall{Tool: "call_mcp_primitive", Arguments: a}
}

// A form the person takes longer to answer than the call's timeout_ms is
// answered and the call completes: its wait is input wait, never server
// time. Both hosts, a target of each era.
func TestAFormHeldPastTheTimeoutCompletes(t *testing.T) {
	t.Parallel()
	for _, host := range hostEras {
		for _, target := range []string{"legacy", "2026-07-28"} {
			t.Run(host+"/"+target, func(t *testing.T) {
				t.Parallel()
				run := runAgentHost(t, host, 1200*time.Millisecond,
					[]agentHostCall{demoConnect("d", target)},
					[]agentHostCall{askName("d", "slow-person", "timeout_ms", 800, "include_metadata", true)})
				got := run.results[1][0]
				if strings.HasPrefix(got, "ERROR") || strings.HasPrefix(got, "isError") || !strings.Contains(got, "accepted: name=slow-person") {
					t.Fatalf("the call with a form held past its timeout: %s", got)
				}
				wantContains(t, "its metadata", got, `"input_wait_ms": 1`, `Input round 1: elicitation "What should the demo call you?`)
			})
		}
	}
}

// Four calls on each of three connections ask a form each, all at once,
// twenty times in a row: every call gets the answer to its own question.
func TestConcurrentFormsEachReachTheirOwnCall(t *testing.T) {
	t.Parallel()
	for _, host := range hostEras {
		for _, target := range []string{"legacy", "2026-07-28"} {
			t.Run(host+"/"+target, func(t *testing.T) {
				t.Parallel()
				conns := []string{"a", "b", "c"}
				phases := [][]agentHostCall{{demoConnect("a", target), demoConnect("b", target), demoConnect("c", target)}}
				for round := range 20 {
					var calls []agentHostCall
					for _, c := range conns {
						for i := range 4 {
							calls = append(calls, askName(c, fmt.Sprintf("%s%d-%d", c, i, round)))
						}
					}
					phases = append(phases, calls)
				}
				run := runAgentHost(t, host, 0, phases...)
				for round, results := range run.results[1:] {
					for i, got := range results {
						label := fmt.Sprintf("%s%d-%d", conns[i/4], i%4, round)
						if !strings.Contains(got, "accepted: name="+label+" ") {
							t.Errorf("run %d: the call that asked [%s] got %q", round+1, label, got)
						}
					}
				}
			})
		}
	}
}

// modernCallLogging is modernCall with the log level the request asks for
// (io.modelcontextprotocol/logLevel): in that era, log messages ride only
// the requests that ask for them.
func modernCallLogging(id, name string, args map[string]any, level string) map[string]any {
	m := modernCall(id, name, args, nil)
	meta := m["params"].(map[string]any)["_meta"].(map[string]any)
	meta["io.modelcontextprotocol/logLevel"] = level
	return m
}

// stderrRelays counts the relayed stderr messages that quote line.
func stderrRelays(h *linesHost, line string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.methods {
		p, _ := m["params"].(map[string]any)
		if m["method"] == "notifications/message" && p["logger"] == "target-stderr" && strings.Contains(fmt.Sprint(p["data"]), line) {
			n++
		}
	}
	return n
}

// A 2026-07-28 host gets the target's stderr relayed, riding a request of
// its that asked for log messages, and none on requests that did not.
func TestStderrIsRelayedToAModernHost(t *testing.T) {
	t.Parallel()
	h := startRawModern(t)
	h.send(t, modernCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}, nil))
	h.await(t, "c")
	h.send(t, modernCall("w1", "call_mcp_primitive", tool("stderr", map[string]any{"lines": 2}), nil))
	h.await(t, "w1")
	// A slow call that asks for no log messages: nothing rides it.
	h.send(t, modernCall("quiet", "call_mcp_primitive", tool("slow", map[string]any{"seconds": 1}), nil))
	h.await(t, "quiet")
	if n := stderrRelays(h, "stderr line 1"); n != 0 {
		t.Fatalf("stderr was relayed to a 2026-07-28 host on requests that asked for no log messages (%d)", n)
	}
	// One that asks for info: the lines ride it, before its answer.
	h.send(t, modernCallLogging("loud", "call_mcp_primitive", tool("slow", map[string]any{"seconds": 1}), "info"))
	h.await(t, "loud")
	if n := stderrRelays(h, "stderr line 1"); n != 1 {
		t.Errorf("the stderr lines were relayed %d time(s) on a request that asked for info, want once", n)
	}
}

// A 2025 host's logging/setLevel governs the relays: at error, the
// target's stderr (relayed at info) is held back; at info it comes.
func TestSetLevelGovernsTheRelays(t *testing.T) {
	t.Parallel()
	h := startRaw(t)
	h.send(t, map[string]any{"jsonrpc": "2.0", "id": "lvl", "method": "logging/setLevel", "params": map[string]any{"level": "error"}})
	h.await(t, "lvl")
	h.send(t, toolCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}))
	h.await(t, "c")
	h.send(t, toolCall("w1", "call_mcp_primitive", tool("stderr", map[string]any{"lines": 1})))
	h.await(t, "w1")
	h.send(t, toolCall("s1", "call_mcp_primitive", tool("slow", map[string]any{"seconds": 1})))
	h.await(t, "s1")
	if n := stderrRelays(h, "stderr line 1"); n != 0 {
		t.Fatalf("stderr was relayed at info to a host that set the level to error")
	}
	h.send(t, map[string]any{"jsonrpc": "2.0", "id": "lvl2", "method": "logging/setLevel", "params": map[string]any{"level": "info"}})
	h.await(t, "lvl2")
	ok := eventually(5*time.Second, func() bool { return stderrRelays(h, "stderr line 1") > 0 })
	if !ok {
		t.Errorf("at info, the stderr held back was never relayed")
	}
}

// A host that cancels a call while its relayed form is open sees the form
// cancelled too (notifications/cancelled for the request run-mcp sent it),
// and gets no result for the cancelled call.
func TestAHostCancelDuringAFormCancelsTheForm(t *testing.T) {
	t.Parallel()
	h := startRawWith(t, map[string]any{"elicitation": map[string]any{}})
	h.send(t, toolCall("c", "connect_to_mcp", map[string]any{"command": bin, "args": demoArgs()}))
	h.await(t, "c")
	h.send(t, toolCall("ask", "call_mcp_primitive", tool("ask_name", nil)))
	asked := h.awaitMethod(t, "the relayed form", func(m map[string]any) bool { return m["method"] == "elicitation/create" })
	h.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": "ask", "reason": "the agent moved on"}})
	h.awaitMethod(t, "the form's cancellation", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		return m["method"] == "notifications/cancelled" && p["requestId"] == asked["id"]
	})
	// A round trip after the cancel: the call's answer would be in by now.
	h.send(t, toolCall("st", "mcp_server_status", map[string]any{}))
	text, _ := resultText(t, h.await(t, "st"))
	if !strings.Contains(text, "Calls in flight: 0") {
		t.Errorf("the cancelled call is still in flight:\n%s", text)
	}
	h.mu.Lock()
	_, answered := h.replies["ask"]
	h.mu.Unlock()
	if answered {
		t.Error("the cancelled call was answered")
	}
}

// metadataOf decodes the JSON of a reply's metadata item.
func metadataOf(t *testing.T, text string) map[string]any {
	t.Helper()
	i := strings.Index(text, "--- metadata ---\n")
	if i < 0 {
		t.Fatalf("no metadata in:\n%s", text)
	}
	dec := json.NewDecoder(strings.NewReader(text[i+len("--- metadata ---\n"):]))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("the metadata is not JSON: %v\n%s", err, text)
	}
	return m
}

// Six calls on one 2025-era stdio target, each with a form, all at once:
// each form names no call, so each pauses every call in flight, and every
// report says so (shared rounds, no split of its time). On a 2026-07-28
// target each form is its own call's, and each report splits its time.
func TestSixConcurrentFormsFollowTheRule(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"legacy", "2026-07-28"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			var calls []agentHostCall
			for i := range 6 {
				calls = append(calls, askName("d", "f"+strconv.Itoa(i), "include_metadata", true))
			}
			run := runAgentHost(t, "2025-11-25", 200*time.Millisecond, []agentHostCall{demoConnect("d", target)}, calls)
			sharing := 0
			for i, got := range run.results[1] {
				if strings.Contains(got, "shared with") {
					sharing++
				}
				if !strings.Contains(got, "accepted: name=f"+strconv.Itoa(i)+" ") {
					t.Fatalf("call %d: %s", i, got)
				}
				meta := metadataOf(t, got)
				_, split := meta["input_wait_ms"]
				shared := strings.Contains(got, "shared with")
				switch {
				case target == "legacy" && (split || meta["time_split"] == nil):
					// Unless it ran alone: then the round was its own.
					if shared {
						t.Errorf("call %d shares rounds and still splits its time:\n%s", i, got)
					}
				case target != "legacy" && (!split || shared):
					t.Errorf("call %d on a 2026-07-28 target: its own round, its time split, want no sharing:\n%s", i, got)
				}
			}
			if target == "legacy" && sharing < 2 {
				t.Errorf("six forms at once on a 2025-era target: only %d call(s) report shared rounds", sharing)
			}
		})
	}
}

// A call that asks nothing beside another's open form: on a 2025-era stdio
// target the form names no call, so it pauses the slow call too (which
// then outlives its timeout_ms) and its report says the time is not split;
// on a 2026-07-28 target the form is the other call's, and the slow call
// times out on its own server time.
func TestASlowCallBesideAnotherCallsForm(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"legacy", "2026-07-28"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			slow := agentHostCall{Tool: "call_mcp_primitive", Arguments: map[string]any{"type": "tool", "name": "slow",
				"arguments": map[string]any{"seconds": 2}, "connection": "d", "timeout_ms": 1000, "include_metadata": true}}
			run := runAgentHost(t, "2025-11-25", 1500*time.Millisecond, []agentHostCall{demoConnect("d", target)},
				[]agentHostCall{slow, askName("d", "beside", "include_metadata", true)})
			got := run.results[1][0]
			if target == "legacy" {
				if strings.Contains(got, "timed out") {
					t.Fatalf("the slow call timed out although a form that named no call paused it:\n%s", got)
				}
				meta := metadataOf(t, got)
				if meta["time_split"] == nil || meta["input_wait_ms"] != nil {
					t.Errorf("the slow call's report splits time run-mcp could not observe:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, "timed out after 1.0s of server time") {
				t.Errorf("on a 2026-07-28 target the slow call must time out on its own clock:\n%s", got)
			}
		})
	}
}

// Over Streamable HTTP a request the server sends on a call's own response
// stream is that call's, exactly: a slow call beside it is not paused and
// times out on its own clock, and the asking call's report splits its time.
func TestHTTPAttributesAQuestionToItsCall(t *testing.T) {
	t.Parallel()
	url := targets.StartHTTPDemo(t, bin)
	slow := agentHostCall{Tool: "call_mcp_primitive", Arguments: map[string]any{"type": "tool", "name": "slow",
		"arguments": map[string]any{"seconds": 2}, "connection": "h", "timeout_ms": 1000}}
	run := runAgentHost(t, "2025-11-25", 1500*time.Millisecond,
		[]agentHostCall{{Tool: "connect_to_mcp", Arguments: map[string]any{"command": url, "name": "h"}}},
		[]agentHostCall{slow, askName("h", "http", "include_metadata", true)})
	if got := run.results[1][0]; !strings.Contains(got, "timed out after 1.0s of server time") {
		t.Errorf("the slow call beside an HTTP call's form was paused by it:\n%s", got)
	}
	got := run.results[1][1]
	if !strings.Contains(got, "accepted: name=http ") {
		t.Fatalf("the asking call: %s", got)
	}
	if meta := metadataOf(t, got); meta["input_wait_ms"] == nil || strings.Contains(got, "shared with") {
		t.Errorf("the asking call's own round must be its own, its time split:\n%s", got)
	}
}
