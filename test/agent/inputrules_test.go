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
