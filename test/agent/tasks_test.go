package agent

import (
	"regexp"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// server-everything's simulate-research-query must be called as a task
// (taskSupport required). With task, the call waits for the task's result;
// an ambiguous query asks the host to clarify while the task runs (an
// elicitation related to the task, sent during tasks/result).
func TestTaskServerEverythingWaits(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": toAny(cmd[1:])})
	text, isErr := callText(t, h, "call_mcp_primitive", tool("simulate-research-query", map[string]any{"topic": "python"}))
	if !isErr || !strings.Contains(text, "requires task augmentation") {
		t.Errorf("without task the server refuses the call: %q", text)
	}
	text = mustText(t, h, "call_mcp_primitive", tool("simulate-research-query", map[string]any{"topic": "python", "ambiguous": true}, "task", true, "include_metadata", true))
	wantContains(t, "task call", text, "[TASK] Task ", "of simulate-research-query: working", `→ input_required ("Found multiple interpretations`, "→ completed",
		`elicitation "The research query \"python\" could have multiple interpretations.": accepted`, "# Research Report: python (User accepted without selection)")
}

// A task started without waiting is followed through the twelve tools:
// mcp_server_status lists it and, with task, asks the server for its
// status; call_mcp_primitive type=task cancels it (cancel) or fetches its
// result. Each reply names the next of these calls.
func TestTaskFollowAndCancel(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": toAny(cmd[1:])})
	text := mustText(t, h, "call_mcp_primitive", tool("simulate-research-query", map[string]any{"topic": "rust"}, "task", map[string]any{"wait": false, "ttl_ms": 60000}))
	m := regexp.MustCompile(`Task created: (\S+) \(status working`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no task in the reply: %q", text)
	}
	id := m[1]
	wantContains(t, "created", text, "call_mcp_primitive type=task name="+id+" waits for its result", "with cancel=true cancels it",
		"mcp_server_status task="+id+" shows its status")
	wantContains(t, "status", mustText(t, h, "mcp_server_status", nil), "Open tasks: 1\n  Task "+id+" of simulate-research-query: working")
	wantContains(t, "status of the task", mustText(t, h, "mcp_server_status", map[string]any{"task": id}),
		"Task "+id+" of simulate-research-query: working", `"taskId": "`+id+`"`, "call_mcp_primitive type=task name="+id)
	wantContains(t, "cancel", mustText(t, h, "call_mcp_primitive", map[string]any{"type": "task", "name": id, "cancel": true}), "→ cancelled")
	if text := mustText(t, h, "mcp_server_status", nil); strings.Contains(text, "Open tasks") {
		t.Errorf("a cancelled task is still listed as open:\n%s", text)
	}
	text = mustFail(t, h, "call_mcp_primitive", map[string]any{"type": "tool", "name": "echo", "cancel": true, "arguments": map[string]any{"message": "x"}})
	wantContains(t, "cancel of a tool call", text, "INVALID_ARGUMENT: ", "cancel needs type task")
}

// A task started without waiting, then its result fetched by id: the
// result as the tool's, headed by the task's line, with the metadata when
// asked.
func TestTaskResultByID(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	h := start(t)
	mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": toAny(cmd[1:])})
	text := mustText(t, h, "call_mcp_primitive", tool("simulate-research-query", map[string]any{"topic": "go"}, "task", map[string]any{"wait": false}))
	m := regexp.MustCompile(`Task created: (\S+) `).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no task in the reply: %q", text)
	}
	res := h.call(t, "call_mcp_primitive", map[string]any{"type": "task", "name": m[1], "include_metadata": true})
	if res.IsError {
		t.Fatalf("type=task: %s", joinText(res))
	}
	lines, meta := metadata(t, res)
	if _, ok := meta["latency_ms"]; !ok {
		t.Errorf("no latency_ms in the metadata: %v", meta)
	}
	if findPrefix(lines, "Progress:") == "" {
		t.Errorf("no Progress line in the metadata item: %q", lines)
	}
	wantContains(t, "task result", joinText(res), "[TASK] Task "+m[1]+" of simulate-research-query: ", "→ completed", "# Research Report: go")
	text = mustFail(t, h, "call_mcp_primitive", map[string]any{"type": "task", "name": m[1], "task": true})
	wantContains(t, "task on a task", text, "INVALID_ARGUMENT: ", "type task already names one")
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
