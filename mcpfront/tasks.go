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

// Tasks (2025-11-25) through the twelve tools, with no tool of their own:
// a task is a call, so call_mcp_primitive runs it (task: a tool call as a
// task, by default waiting for its result), fetches its result (type task,
// name = the task id) and cancels it (type task, cancel); mcp_server_status,
// which reports on a connection, lists the open tasks and, with task, asks
// the server for one task's status. Every reply about a task names the next
// of these calls, so an agent finds them from the reply it has.

// kindTask is call_mcp_primitive's type for a task a tool call created.
const kindTask = "task"

// primitiveKinds are call_mcp_primitive's types.
var primitiveKinds = []string{actors.KindTool, actors.KindResource, actors.KindPrompt, kindTask}

// taskSchema is call_mcp_primitive's task: true, or an object.
func taskSchema() schema {
	return schema{"description": "Run the tool call as a task (2025-11-25 task-augmented request): true, or {ttl_ms, wait}. " +
		"By default the call waits for the task's result (tasks/result) within timeout_ms; wait=false returns the task id at once, " +
		"for call_mcp_primitive type=task name=<id> to fetch its result later.",
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

// checkTaskArgs refuses the task options of call_mcp_primitive that do not
// fit its type, before anything is sent.
func checkTaskArgs(kind string, a map[string]any, task *actors.TaskParams) error {
	invalid := func(msg string) error { return &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: msg} }
	switch {
	case task != nil && kind == kindTask:
		return invalid("task runs a tool call as a task; type task already names one (name = its id). Leave task out to wait for its result, or pass cancel=true")
	case task != nil && kind != actors.KindTool:
		return invalid("task needs type tool: only tools/call runs as a task")
	case getBool(a, "cancel") && kind != kindTask:
		return invalid("cancel needs type task and the task's id as name: it cancels a task (tasks/cancel). To stop a call in flight, cancel the request itself")
	case kind == kindTask && (has(a, "arguments") || has(a, "args")):
		return invalid("type task takes no arguments: the task runs with those of the tool call that created it")
	}
	return nil
}

// taskNext is what an agent can do with a task, in the words of the tools.
func taskNext(id, conn string) string {
	return fmt.Sprintf("call_mcp_primitive type=task name=%s%s waits for its result (tasks/result), with cancel=true cancels it (tasks/cancel); mcp_server_status task=%s%s shows its status (tasks/get)",
		id, connHint(conn), id, connHint(conn))
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
	fmt.Fprintf(&b, ").\nNext: %s.", taskNext(t.ID, conn))
	return textResult(b.String())
}

// taskHint adds to a wait that ended before the task did how to follow it.
func taskHint(err error, conn string) error {
	var pending *actors.TaskPendingError
	if errors.As(err, &pending) {
		return fmt.Errorf("%w\nFrom here: %s", err, taskNext(pending.ID, conn))
	}
	return err
}

// runTaskResult waits for a task's result (call_mcp_primitive type=task)
// and answers like any call's end: shaped, with the task's line, the
// metadata when asked. A question the server asks meanwhile rides on p.
func (f *front) runTaskResult(ctx context.Context, p *primitive, c *actors.Conn, id string, timeout time.Duration) {
	p.mu.Lock()
	p.conn = c
	p.mu.Unlock()
	out, err := c.TaskResultFor(ctx, id, timeout, func(ev actors.ProgressEvent) { f.relayProgress(p, &ev) }, p)
	f.finish(p, actors.CallEvent{Done: true, Outcome: out, Err: err})
}

// cancelTask cancels a task (call_mcp_primitive type=task cancel=true).
func (f *front) cancelTask(ctx context.Context, c *actors.Conn, id string) *mcp.CallToolResult {
	info, err := c.TaskCancel(ctx, id)
	if err != nil {
		return errResult(fmt.Errorf("tasks/cancel of task %s failed: %w", id, err))
	}
	return textResult(taskStatusText(info, c.Name()))
}

// taskStatus answers mcp_server_status task=<id>: the server's own word on
// the task (tasks/get), with what to do next.
func (f *front) taskStatus(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.ResolveWait(ctx, getStr(a, "connection"), true)
	if err != nil {
		return nil, err
	}
	id := getStr(a, "task")
	info, err := c.TaskGet(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("tasks/get of task %s failed: %w", id, err)
	}
	return textResult(taskStatusText(info, c.Name())), nil
}

// withTaskLine puts the task's line before the result's content.
func withTaskLine(res *mcp.CallToolResult, t *actors.TaskInfo) *mcp.CallToolResult {
	if t == nil {
		return res
	}
	shown := *res
	shown.Content = append([]mcp.Content{mcp.NewTextContent("[TASK] " + t.Line())}, res.Content...)
	return &shown
}

// taskStatusText is a task's line, what to do with it, and all run-mcp
// knows of it as JSON.
func taskStatusText(t actors.TaskInfo, conn string) string {
	b, _ := json.MarshalIndent(t, "", "  ")
	next := "It has ended: call_mcp_primitive type=task name=" + t.ID + connHint(conn) + " fetches what it returned (tasks/result)."
	if !t.Terminal() {
		next = "Next: " + taskNext(t.ID, conn) + "."
	}
	return t.Line() + "\n" + next + "\n" + string(b)
}

// openTasksText lists a connection's open tasks for mcp_server_status, as
// last seen (notifications and earlier answers): status asks the server
// nothing, so it answers while the server is busy.
func openTasksText(tasks []actors.TaskInfo) string {
	if len(tasks) == 0 {
		return ""
	}
	lines := []string{fmt.Sprintf("Open tasks: %d", len(tasks))}
	for _, t := range tasks {
		lines = append(lines, "  "+t.Line())
	}
	lines = append(lines, "  (as last seen; mcp_server_status task=<id> asks the server, call_mcp_primitive type=task name=<id> waits for the result)")
	return strings.Join(lines, "\n")
}
