package demoserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	defaultSlowSeconds = 1.0
	defaultSlowSteps   = 4
	maxSlowSeconds     = 3600
	maxSlowSteps       = 10_000
)

func (d *demo) slowTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("slow",
			annotated(pure),
			mcp.WithDescription("Takes its time, reporting progress at each step when the call carries a progress token."),
			mcp.WithNumber("seconds", mcp.DefaultNumber(defaultSlowSeconds), mcp.Min(0), mcp.Max(maxSlowSeconds),
				mcp.Description("Total duration in seconds.")),
			mcp.WithInteger("steps", mcp.DefaultNumber(defaultSlowSteps), mcp.Min(1), mcp.Max(maxSlowSteps),
				mcp.Description("Number of steps, one progress notification each.")),
		),
		Handler: d.handleSlow,
	}
}

func (d *demo) handleSlow(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	seconds := req.GetFloat("seconds", defaultSlowSeconds)
	steps := req.GetInt("steps", defaultSlowSteps)
	if seconds < 0 || seconds > maxSlowSeconds {
		return mcp.NewToolResultErrorf("seconds must be between 0 and %d, got %g", maxSlowSeconds, seconds), nil
	}
	if steps < 1 || steps > maxSlowSteps {
		return mcp.NewToolResultErrorf("steps must be between 1 and %d, got %d", maxSlowSteps, steps), nil
	}
	var token mcp.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	pause := time.Duration(seconds / float64(steps) * float64(time.Second))
	// Logged so a test (or a person reading stderr) can see the call has
	// reached the server before it interrupts it.
	d.printf("demo-server: slow: started, %d step(s) over %gs\n", steps, seconds)
	for i := 1; i <= steps; i++ {
		if !sleep(ctx, pause) {
			// The client gave up (notifications/cancelled) or we are
			// shutting down: stop now, as a well-behaved server should.
			d.printf("demo-server: slow: cancelled at step %d\n", i)
			return mcp.NewToolResultErrorf("cancelled at step %d", i), nil
		}
		if err := d.progress(ctx, token, i, steps); err != nil {
			// Progress is best effort (mcp-go drops notifications when its
			// queue is full); the work itself goes on.
			d.printf("demo-server: slow: %v\n", err)
		}
	}
	return mcp.NewToolResultText(fmt.Sprintf("done after %d steps", steps)), nil
}

// progress sends step i of total, if the caller asked for progress at all.
func (d *demo) progress(ctx context.Context, token mcp.ProgressToken, i, total int) error {
	if token == nil {
		return nil
	}
	err := d.srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
		"progressToken": token,
		"progress":      i,
		"total":         total,
		"message":       fmt.Sprintf("step %d", i),
	})
	if err != nil {
		return fmt.Errorf("sending progress %d/%d: %w", i, total, err)
	}
	return nil
}

// sleep waits for d or until ctx ends, and reports whether it slept fully.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
