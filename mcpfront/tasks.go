package mcpfront

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
)

// Tasks (2025-11-25) through the agent server: call_mcp_primitive's task
// runs a tool call as a task and by default waits for its result; mcp_task
// follows a task (status, result, cancel); mcp_server_status lists the open ones.

// taskSchema is call_mcp_primitive's task: true, or an object.
func taskSchema() schema {
	return schema{"description": "Call the tool as a task (2025-11-25 task-augmented request): true, or {ttl_ms, wait}. " +
		"By default the call waits for the task's result (tasks/result) within timeout_ms; wait=false returns the task at once, for mcp_task.",
		"anyOf": []any{schema{"type": "boolean"}, object(nil, schema{
			"ttl_ms": count("How long the server should keep the task (its default if not given)."),
			"wait":   boolean("Wait for the result (default true)."),
		})}}
}

// taskArg reads call_mcp_primitive's task.
func taskArg(a map[string]any) (*actors.TaskParams, error) {
	v, ok := a["task"]
	if !ok || v == nil {
		return nil, nil
	}
	switch t := v.(type) {
	case bool:
		if !t {
			return nil, nil
		}
		return &actors.TaskParams{Wait: true}, nil
	case map[string]any:
		for k := range t {
			if k != "ttl_ms" && k != "wait" {
				return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf("call_mcp_primitive: task does not take %q. It takes: ttl_ms, wait", k)}
			}
		}
		p := &actors.TaskParams{Wait: true, TTL: time.Duration(getInt(t, "ttl_ms", 0)) * time.Millisecond}
		if w, ok := t["wait"].(bool); ok {
			p.Wait = w
		}
		return p, nil
	}
	return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf("call_mcp_primitive: task must be true or an object {ttl_ms, wait}, got %s", gotOf(v))}
}

// taskLine heads a task's result: what the task went through.
func taskLine(t *actors.TaskInfo) string {
	return "[TASK] " + t.Line()
}

// taskCreated is the reply to a task started without waiting.
func taskCreated(t *actors.TaskInfo, conn string) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "Task created: %s (status %s", t.ID, t.Status)
	if t.StatusMessage != "" {
		fmt.Fprintf(&b, ", %q", t.StatusMessage)
	}
	if t.TTL != nil {
		fmt.Fprintf(&b, ", ttl %d ms", *t.TTL)
	}
	if t.PollInterval != nil {
		fmt.Fprintf(&b, ", poll every %d ms", *t.PollInterval)
	}
	fmt.Fprintf(&b, ").\nNext: mcp_task task_id=%s%s (status, tasks/get); action=result waits for its result (tasks/result); action=cancel cancels it (tasks/cancel).",
		t.ID, connHint(conn))
	return textResult(b.String())
}

// taskHint adds to a wait that ended before the task did how to follow it.
func taskHint(err error, conn string) error {
	var pending *actors.TaskPendingError
	if errors.As(err, &pending) {
		return fmt.Errorf("%w\nFrom here: mcp_task task_id=%s%s action=status, action=result or action=cancel", err, pending.ID, connHint(conn))
	}
	return err
}

// task is the mcp_task tool.
func (f *front) task(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.ResolveWait(ctx, getStr(a, "connection"), true)
	if err != nil {
		return nil, err
	}
	id := getStr(a, "task_id")
	switch action := getStr(a, "action"); action {
	case "", "status":
		info, err := c.TaskGet(ctx, id)
		if err != nil {
			return nil, err
		}
		return textResult(taskStatusText(info)), nil
	case "cancel":
		info, err := c.TaskCancel(ctx, id)
		if err != nil {
			return nil, err
		}
		return textResult(taskStatusText(info)), nil
	case "result":
		timeout := time.Duration(getInt(a, "timeout_ms", int(f.opts.Timeout.Milliseconds()))) * time.Millisecond
		out, err := c.TaskResult(ctx, id, timeout, nil)
		if err != nil {
			return nil, taskHint(err, c.Name())
		}
		res, _, _, err := f.shape(actors.KindTool, out.Raw, getInt(a, "max_text_length", 0))
		if err != nil {
			return nil, err
		}
		return withTaskLine(res, out.Task), nil
	default:
		return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf("mcp_task: action must be status, result or cancel, not %q", action)}
	}
}

// withTaskLine puts the task's line before the result's content.
func withTaskLine(res *mcp.CallToolResult, t *actors.TaskInfo) *mcp.CallToolResult {
	if t == nil {
		return res
	}
	shown := *res
	shown.Content = append([]mcp.Content{mcp.NewTextContent(taskLine(t))}, res.Content...)
	return &shown
}

func taskStatusText(t actors.TaskInfo) string {
	b, _ := json.MarshalIndent(t, "", "  ")
	return t.Line() + "\n" + string(b)
}

// openTasksText lists a connection's open tasks for mcp_server_status.
func openTasksText(tasks []actors.TaskInfo) string {
	if len(tasks) == 0 {
		return ""
	}
	lines := []string{fmt.Sprintf("Open tasks: %d", len(tasks))}
	for _, t := range tasks {
		lines = append(lines, "  "+t.Line())
	}
	return strings.Join(lines, "\n")
}
