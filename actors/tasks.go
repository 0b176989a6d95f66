package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Tasks (2025-11-25): a tools/call with params.task is answered at once with
// a task the server runs on; the client follows its status (tasks/get and
// notifications/tasks/status), fetches its result (tasks/result, which
// waits for it) and may cancel it (tasks/cancel). Each life of a connection
// keeps the tasks its calls created, so status can show the open ones.

// KindTaskResult is a call of tasks/result: Name is the task id. It waits
// for the task like any call (its timeout, its input rounds).
const KindTaskResult = "task-result"

// TaskParams asks for a tool call to run as a task.
type TaskParams struct {
	TTL time.Duration // how long the server keeps the task (0: its default)
	// Wait makes Call wait for the task's result (tasks/result) within the
	// call's timeout; without it Call returns the task as created.
	Wait bool
}

// TaskInfo is what run-mcp knows of one task.
type TaskInfo struct {
	ID            string       `json:"taskId"`
	Tool          string       `json:"tool,omitempty"`
	Status        string       `json:"status"`
	StatusMessage string       `json:"statusMessage,omitempty"`
	CreatedAt     string       `json:"createdAt,omitempty"`
	LastUpdatedAt string       `json:"lastUpdatedAt,omitempty"`
	TTL           *int64       `json:"ttl,omitempty"`
	PollInterval  *int64       `json:"pollInterval,omitempty"`
	History       []TaskChange `json:"history"`
	created       time.Time
}

// TaskChange is one status the task was seen in, and how it was seen.
type TaskChange struct {
	Status  string `json:"status"`
	Message string `json:"statusMessage,omitempty"`
	AtMS    int64  `json:"at_ms"`  // since the task was created
	Source  string `json:"source"` // created, notification, tasks/get, tasks/cancel, tasks/result
}

// Terminal says the task will not change any more.
func (t TaskInfo) Terminal() bool {
	switch t.Status {
	case string(mcp.TaskStatusCompleted), string(mcp.TaskStatusFailed), string(mcp.TaskStatusCancelled):
		return true
	}
	return false
}

// Line is the task in one line: id, tool, the statuses it went through.
func (t TaskInfo) Line() string {
	var steps []string
	for _, h := range t.History {
		s := h.Status
		if h.Message != "" {
			s += fmt.Sprintf(" (%q)", h.Message)
		}
		steps = append(steps, s)
	}
	tool := ""
	if t.Tool != "" {
		tool = " of " + t.Tool
	}
	return fmt.Sprintf("Task %s%s: %s", t.ID, tool, strings.Join(steps, " → "))
}

// taskTable is the tasks of one life of a connection; the actor owns it.
type taskTable struct {
	order []string
	byID  map[string]*TaskInfo
}

// taskWire is a Task as the server sends it (in CreateTaskResult.task, as
// GetTaskResult, CancelTaskResult and the status notification's params).
type taskWire struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int64 `json:"pollInterval"`
}

// update records what the server said of a task; tool names the call that
// created it (only known at creation).
func (t *taskTable) update(w taskWire, tool, source string) TaskInfo {
	if t.byID == nil {
		t.byID = map[string]*TaskInfo{}
	}
	info := t.byID[w.TaskID]
	if info == nil {
		info = &TaskInfo{ID: w.TaskID, Tool: tool, created: time.Now()}
		t.byID[w.TaskID] = info
		t.order = append(t.order, w.TaskID)
	}
	if info.Tool == "" {
		info.Tool = tool // a status notification may come before the call's answer
	}
	changed := info.Status != w.Status || (w.StatusMessage != "" && info.StatusMessage != w.StatusMessage)
	if w.Status != "" {
		info.Status = w.Status
	}
	if w.StatusMessage != "" {
		info.StatusMessage = w.StatusMessage
	}
	info.CreatedAt, info.LastUpdatedAt = firstNonEmpty(w.CreatedAt, info.CreatedAt), firstNonEmpty(w.LastUpdatedAt, info.LastUpdatedAt)
	if w.TTL != nil {
		info.TTL = w.TTL
	}
	if w.PollInterval != nil {
		info.PollInterval = w.PollInterval
	}
	if changed && w.Status != "" {
		info.History = append(info.History, TaskChange{Status: w.Status, Message: w.StatusMessage,
			AtMS: time.Since(info.created).Milliseconds(), Source: source})
	}
	return *info
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (t *taskTable) get(id string) (TaskInfo, bool) {
	if info := t.byID[id]; info != nil {
		return *info, true
	}
	return TaskInfo{}, false
}

// open lists the tasks not yet completed, failed or cancelled, oldest first.
func (t *taskTable) open() []TaskInfo {
	var out []TaskInfo
	for _, id := range t.order {
		if info := t.byID[id]; !info.Terminal() {
			out = append(out, *info)
		}
	}
	return out
}

// onStatus records a notifications/tasks/status.
func (t *taskTable) onStatus(params json.RawMessage) {
	var w taskWire
	if json.Unmarshal(params, &w) == nil && w.TaskID != "" {
		t.update(w, "", "notification")
	}
}

// createdTask reads the task out of a task-augmented call's answer; ok is
// false when the server answered with a plain result (it may run the call
// at once instead).
func createdTask(raw json.RawMessage) (taskWire, bool) {
	var r struct {
		Task *taskWire `json:"task"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Task == nil || r.Task.TaskID == "" {
		return taskWire{}, false
	}
	return *r.Task, true
}

// callTask runs a task-augmented tool call: the call creates the task, and
// with Wait a tasks/result call waits for its result in what is left of the
// budget. The outcome is the result's, with Task set and the two calls'
// times summed.
func (c *Conn) callTask(ctx context.Context, req CallRequest) (*Outcome, error) {
	wait := req.Task.Wait
	created, err := c.call(ctx, req)
	if err != nil || created.Task == nil || !wait {
		return created, err
	}
	budget := callBudget(req.Timeout)
	left := max(budget-created.ServerTime, time.Millisecond)
	res, err := c.taskResult(ctx, created.Task.ID, left, req.OnProgress, req.Tag)
	if res == nil {
		return nil, err
	}
	res.Latency += created.Latency
	res.ServerTime += created.ServerTime
	res.InputWait += created.InputWait
	res.Rounds = append(created.Rounds, res.Rounds...)
	res.Progress = append(created.Progress, res.Progress...)
	return res, err
}

// TaskResult waits for a task's result (tasks/result) within timeout, as a
// call: the result is the Outcome's Raw, and Task is the task as last seen.
func (c *Conn) TaskResult(ctx context.Context, id string, timeout time.Duration, onProgress func(ProgressEvent)) (*Outcome, error) {
	return c.taskResult(ctx, id, timeout, onProgress, nil)
}

// TaskResultFor is TaskResult for a front end that carries the wait on a
// request of its own: tag is among the Carriers of every question the
// server asks while the task runs, as a call's Tag is.
func (c *Conn) TaskResultFor(ctx context.Context, id string, timeout time.Duration, onProgress func(ProgressEvent), tag any) (*Outcome, error) {
	return c.taskResult(ctx, id, timeout, onProgress, tag)
}

// taskResult is TaskResult for the call that created the task: tag is that
// call's, so a question the server asks while the task runs rides on it.
func (c *Conn) taskResult(ctx context.Context, id string, timeout time.Duration, onProgress func(ProgressEvent), tag any) (*Outcome, error) {
	res, err := c.call(ctx, CallRequest{Kind: KindTaskResult, Name: id, Timeout: timeout, OnProgress: onProgress, Tag: tag})
	if err != nil {
		var target *TargetError
		if errors.As(err, &target) {
			// The task failed: tasks/result carries the request's error.
			_, _ = c.TaskGet(ctx, id)
		}
		return res, c.taskNotFinished(ctx, id, err)
	}
	if info, err := c.TaskGet(ctx, id); err == nil {
		res.Task = &info
	} else {
		// The result is in: the task is over even if tasks/get failed.
		info, _ := c.taskUpdate(ctx, taskWire{TaskID: id, Status: string(mcp.TaskStatusCompleted)}, "tasks/result")
		res.Task = &info
	}
	return res, nil
}

// taskUpdate records what was learnt of a task, on the actor.
func (c *Conn) taskUpdate(ctx context.Context, w taskWire, source string) (TaskInfo, error) {
	return ask(context.WithoutCancel(ctx), c, func(st *connState) TaskInfo {
		if st.sess == nil {
			return TaskInfo{ID: w.TaskID, Status: w.Status}
		}
		return st.sess.tasks.update(w, "", source)
	})
}

// taskNotFinished says that waiting for a task's result failed, and that the
// task may still be running on the server.
func (c *Conn) taskNotFinished(ctx context.Context, id string, err error) error {
	info, ok, _ := c.taskInfo(ctx, id)
	status := "in an unknown state"
	if ok {
		status = info.Status
		if info.Terminal() {
			return err
		}
	}
	return &TaskPendingError{ID: id, Status: status, Err: err}
}

func (c *Conn) taskInfo(ctx context.Context, id string) (TaskInfo, bool, error) {
	type res struct {
		info TaskInfo
		ok   bool
	}
	r, err := ask(context.WithoutCancel(ctx), c, func(st *connState) res {
		if st.sess == nil {
			return res{}
		}
		info, ok := st.sess.tasks.get(id)
		return res{info, ok}
	})
	return r.info, r.ok, err
}

// TaskPendingError is a wait for a task's result that ended before the task
// did: the task may still run on the server.
type TaskPendingError struct {
	ID, Status string
	Err        error
}

func (e *TaskPendingError) Error() string {
	return fmt.Sprintf("%v\nTask %s was created and is %s on the server: tasks/get shows its status, tasks/result waits for its result, tasks/cancel cancels it",
		e.Err, e.ID, e.Status)
}

func (e *TaskPendingError) Unwrap() error { return e.Err }

// TaskGet asks the server for a task's status (tasks/get).
func (c *Conn) TaskGet(ctx context.Context, id string) (TaskInfo, error) {
	return c.taskRequest(ctx, string(mcp.MethodTasksGet), id)
}

// TaskCancel asks the server to cancel a task (tasks/cancel).
func (c *Conn) TaskCancel(ctx context.Context, id string) (TaskInfo, error) {
	return c.taskRequest(ctx, string(mcp.MethodTasksCancel), id)
}

func (c *Conn) taskRequest(ctx context.Context, method, id string) (TaskInfo, error) {
	s, err := c.live(ctx)
	if err != nil {
		return TaskInfo{}, err
	}
	raw, err := c.exchange(ctx, s, method, map[string]any{"taskId": id}, c.requestBudget(ctx, s.cfg), "")
	if err != nil {
		return TaskInfo{}, err
	}
	var w taskWire
	if err := json.Unmarshal(raw, &w); err != nil || w.TaskID == "" {
		return TaskInfo{}, fmt.Errorf("the server's answer to %s is not a task (no taskId): %s", method, firstLine(string(raw)))
	}
	return c.taskUpdate(ctx, w, method)
}

// Tasks lists the open tasks of the connection's current life.
func (c *Conn) Tasks(ctx context.Context) ([]TaskInfo, error) {
	s, err := c.live(ctx)
	if err != nil {
		return nil, err
	}
	return ask(ctx, c, func(*connState) []TaskInfo { return s.tasks.open() })
}
