package agent

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every call offers a progress token; include_metadata says what the
// server did with it.
func TestProgressReported(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")

	// mcp-go's stdio server (the demo is built on it) writes notifications
	// from a goroutine of their own and responses from the handler's, so
	// now and then the last progress leaves after the result, where no
	// client can attribute it to the call. That is the server's ordering,
	// not run-mcp's: try again when it happens.
	var res *mcp.CallToolResult
	var lines []string
	var meta map[string]any
	for attempt := 1; ; attempt++ {
		mustText(t, h, "get_server_notifications", map[string]any{"clear": true})
		res = h.call(t, "call_mcp_primitive", tool("slow", map[string]any{"seconds": 0.4, "steps": 4}, "include_metadata", true))
		if res.IsError {
			t.Fatalf("slow failed:\n%s", joinText(res))
		}
		lines, meta = metadata(t, res)
		if !strings.HasPrefix(findPrefix(lines, "Progress:"), "Progress: 3 update(s) streamed; last 3/4") || attempt == 5 {
			break
		}
		late := eventually(2*time.Second, func() bool {
			return strings.Contains(mustText(t, h, "get_server_notifications", map[string]any{"method": "progress"}), `"step 4"`)
		})
		if !late {
			t.Fatalf("step 4 was lost, not late: the notification log never got it")
		}
		t.Logf("attempt %d: the demo server sent step 4 after its result; trying again", attempt)
	}
	line := findPrefix(lines, "Progress:")
	if !regexp.MustCompile(`^Progress: 4 update\(s\) streamed; last 4/4 "step 4" at \d+\.\ds\.$`).MatchString(line) {
		t.Errorf("progress line %q, want `Progress: 4 update(s) streamed; last 4/4 \"step 4\" at N.Ns.`", line)
	}
	prog, _ := meta["progress"].(map[string]any)
	if ev, _ := prog["events"].([]any); len(ev) != 4 {
		t.Errorf("progress.events has %d events, want 4: %v", len(ev), prog)
	}
	if tok, _ := prog["token"].(string); tok == "" {
		t.Errorf("progress.token is empty: %v", prog)
	}
	if got := joinText(res); !strings.HasSuffix(got, "done after 4 steps") {
		t.Errorf("slow's own answer is missing:\n%s", got)
	}

	// The updates are in the notification log too.
	notes := mustText(t, h, "get_server_notifications", map[string]any{"method": "progress"})
	wantContains(t, "get_server_notifications method=progress", notes,
		`4 of 4 matching notification(s) (method contains "progress")`, `"step 4"`)

	res = h.call(t, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"}, "include_metadata", true))
	lines, _ = metadata(t, res)
	if want := "Progress: none — a progress token was offered and the server sent no notifications/progress"; !hasLine(strings.Join(lines, "\n"), want) {
		t.Errorf("echo metadata lacks %q:\n%s", want, strings.Join(lines, "\n"))
	}
}

// A host that cancels a call gets its answer at once, and the target is
// told (notifications/cancelled) so it stops working.
func TestCancellationReachesTarget(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	req := callRequest("call_mcp_primitive", tool("slow", map[string]any{"seconds": 5}))
	_, err := h.c.CallTool(ctx, req)
	took := time.Since(began)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a cancelled call returned %v, want the context's error", err)
	}
	if took > 2*time.Second {
		t.Errorf("the cancelled call took %s to return", took)
	}

	var out string
	ok := eventually(4*time.Second, func() bool {
		out = mustText(t, h, "get_mcp_server_stderr", map[string]any{"timestamps": false})
		return strings.Contains(out, "demo-server: slow: cancelled at step")
	})
	if !ok {
		t.Errorf("the demo server never saw notifications/cancelled; its stderr:\n%s", out)
	}
	status := mustText(t, h, "mcp_server_status", nil)
	wantContains(t, "status after the cancel", status, "Connection default: live", "Calls in flight: 0")
	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"})); got != "echo: hi" {
		t.Errorf("echo after a cancel: got %q", got)
	}
}

// A host that offers a progress token for call_mcp_primitive sees the
// target's progress streamed under its own token as it happens.
func TestProgressRelayedToHost(t *testing.T) {
	t.Parallel()
	h := start(t)
	connectDemo(t, h, "")
	req := mcp.CallToolRequest{}
	req.Params.Name = "call_mcp_primitive"
	req.Params.Arguments = tool("slow", map[string]any{"seconds": 0.3, "steps": 3})
	req.Params.Meta = &mcp.Meta{ProgressToken: "host-token-7"}
	if _, err := h.c.CallTool(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	ok := eventually(5*time.Second, func() bool {
		n := 0
		for _, note := range h.notifications() {
			if note.Method == "notifications/progress" && note.Params.AdditionalFields["progressToken"] == "host-token-7" {
				n++
			}
		}
		return n == 3
	})
	if !ok {
		t.Fatalf("want 3 progress notifications under the host's token, got %v", h.notifications())
	}
}
