package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// run-mcp call --task calls a tool as a task and waits for its result within
// --timeout; without --task, server-everything refuses its task-only tool.
func TestCallTask(t *testing.T) {
	t.Parallel()
	target := everything(t)
	r := run(t, args([]string{"call", "simulate-research-query", "topic=python"}, target)...)
	r.wantCode(t, 1)
	if !strings.Contains(r.text(t), "requires task augmentation") {
		t.Errorf("without --task:\n%s", r)
	}
	r = run(t, args([]string{"call", "simulate-research-query", "topic=python", "--task", "--raw"}, target)...)
	r.wantCode(t, 0)
	var env struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		Task struct {
			ID      string `json:"taskId"`
			Status  string `json:"status"`
			History []struct {
				Status string `json:"status"`
			} `json:"history"`
		} `json:"task"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
		t.Fatalf("--raw is not JSON: %v\n%s", err, r)
	}
	if len(env.Content) == 0 || !strings.Contains(env.Content[0].Text, "# Research Report: python") {
		t.Errorf("no research report:\n%s", r)
	}
	if env.Task.ID == "" || env.Task.Status != "completed" || len(env.Task.History) < 2 || env.Task.History[0].Status != "working" {
		t.Errorf("the envelope's task: %+v\n%s", env.Task, r)
	}
	// A task that outlives the timeout is reported as still running.
	r = run(t, args([]string{"call", "simulate-research-query", "topic=go", "--task", "--timeout", "1000"}, target)...)
	if r.code == 0 {
		t.Fatalf("a task longer than --timeout succeeded:\n%s", r)
	}
	r.wantStderr(t, "tasks/result got no answer within its", "was created and is working on the server")
}
