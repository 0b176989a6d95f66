package demoserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools that act on the process and its pipes rather than on MCP: what
// run-mcp has to survive and diagnose.

const (
	defaultCrashCode = 3
	noiseLine        = "this line is not JSON-RPC"
	maxStderrLines   = 1_000_000
)

func (d *demo) crashTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("crash",
			annotated(hints{destructive: true}), // it ends the server
			mcp.WithDescription("Crashes the server mid-call: a message on stderr, then exit with the code, never answering."),
			mcp.WithInteger("code", mcp.DefaultNumber(defaultCrashCode), mcp.Min(0), mcp.Max(255),
				mcp.Description("Exit code.")),
		),
		Handler: d.handleCrash,
	}
}

func (d *demo) handleCrash(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	code := req.GetInt("code", defaultCrashCode)
	d.printf("demo-server: crashing on purpose in a call (exit %d)\n"+
		"    at crash (demoserver/tools_process.go)\n", code)
	d.exit(code)
	// Only a replaced Exit gets here. stdout is already silenced, so wait
	// for the end and let whatever we return go nowhere.
	<-ctx.Done()
	return nil, fmt.Errorf("exited with code %d: %w", code, ctx.Err())
}

func (d *demo) noiseTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("noise",
			annotated(emits),
			mcp.WithDescription("Writes one line that is not JSON-RPC to stdout, then answers normally."),
		),
		Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// Through the same locked writer as the frames, so the noise is
			// a whole line of its own and never splits one.
			if _, err := io.WriteString(d.stdout, noiseLine+"\n"); err != nil {
				return nil, fmt.Errorf("writing noise: %w", err)
			}
			return mcp.NewToolResultText("wrote one line of noise to stdout"), nil
		},
	}
}

func (d *demo) stderrTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("stderr",
			annotated(emits),
			mcp.WithDescription("Writes numbered lines to stderr."),
			mcp.WithInteger("lines", mcp.DefaultNumber(1), mcp.Min(0), mcp.Max(maxStderrLines),
				mcp.Description("How many lines to write.")),
		),
		Handler: d.handleStderr,
	}
}

func (d *demo) handleStderr(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n := req.GetInt("lines", 1)
	if n < 0 || n > maxStderrLines {
		return mcp.NewToolResultErrorf("lines must be between 0 and %d, got %d", maxStderrLines, n), nil
	}
	// One Write for the lot, so the lines stay together in stderr.
	buf := make([]byte, 0, n*16)
	for i := 1; i <= n; i++ {
		buf = append(strconv.AppendInt(append(buf, "stderr line "...), int64(i), 10), '\n')
	}
	if _, err := d.stderr.Write(buf); err != nil {
		return nil, fmt.Errorf("writing stderr: %w", err)
	}
	if n == 1 {
		return mcp.NewToolResultText("wrote 1 line"), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("wrote %d lines", n)), nil
}

func envTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("env",
			annotated(pure),
			mcp.WithDescription("Reports whether an environment variable is set in the server, and its value."),
			mcp.WithString("name", mcp.Required(), mcp.Description("Variable name.")),
		),
		Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, err := req.RequireString("name")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			value, ok := os.LookupEnv(name)
			if !ok {
				return mcp.NewToolResultText(name + " is not set"), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("%s is set: %q", name, value)), nil
		},
	}
}
