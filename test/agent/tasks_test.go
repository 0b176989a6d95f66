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

// A task started without waiting is listed by status, followed with mcp_task
// and cancelled.
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
	wantContains(t, "created", text, "mcp_task task_id="+id)
	wantContains(t, "status", mustText(t, h, "mcp_server_status", nil), "Open tasks: 1\n  Task "+id+" of simulate-research-query: working")
	wantContains(t, "mcp_task status", mustText(t, h, "mcp_task", map[string]any{"task_id": id}), "Task "+id+" of simulate-research-query: working", `"taskId": "`+id+`"`)
	wantContains(t, "mcp_task cancel", mustText(t, h, "mcp_task", map[string]any{"task_id": id, "action": "cancel"}), "→ cancelled")
	if text := mustText(t, h, "mcp_server_status", nil); strings.Contains(text, "Open tasks") {
		t.Errorf("a cancelled task is still listed as open:\n%s", text)
	}
	text, isErr := callText(t, h, "mcp_task", map[string]any{"task_id": id, "action": "bogus"})
	if !isErr || !strings.Contains(text, "action must be one of status, result, cancel") {
		t.Errorf("a bad action: %q", text)
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
