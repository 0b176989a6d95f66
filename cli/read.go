package cli

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/toolcheck"
)

// newReadCmds builds read, get-prompt and describe.
func newReadCmds(g *globals, version string) []*cobra.Command {
	return []*cobra.Command{
		newHeadlessCmd(g, version, headless{use: "read [options] <uri> [-- target_command...]", short: "Read one resource and print it as JSON",
			example: "  run-mcp read demo://counter -- run-mcp demo-server", layout: layout{positionals: 1}, saves: true, run: readResource}),
		newHeadlessCmd(g, version, headless{use: "get-prompt [options] <name> [json_args | key=value ...] [-- target_command...]",
			short: "Get one prompt and print it as JSON (prompt arguments are strings)", layout: layout{positionals: 1, argWords: true}, stringArgs: true,
			example: "  run-mcp get-prompt greet name=Ada -- run-mcp demo-server", run: getPrompt}),
		newHeadlessCmd(g, version, headless{use: "describe [options] <tool> [-- target_command...]", short: "Print one tool's description and schemas as JSON",
			example: "  run-mcp describe echo -- run-mcp demo-server", layout: layout{positionals: 1}, run: describeTool}),
	}
}

func readResource(ctx context.Context, x *job, c *actors.Conn) error {
	out, err := c.Call(ctx, actors.CallRequest{Kind: actors.KindResource, Name: x.sp.positionals[0], Timeout: x.g.callTimeout(headlessTimeout)})
	if err != nil {
		return x.g.failed(err)
	}
	res, err := mcp.ParseReadResourceResult(&out.Raw)
	if err != nil {
		return exitf(ExitToolError, "the server answered resources/read with something that is not a valid resource (%v); a strict client would reject it", err)
	}
	ic, err := x.interceptor()
	if err != nil {
		return err
	}
	shown, _, err := ic.ResourceResult(res, 0)
	if err != nil {
		return exitf(ExitInternal, "%v", err)
	}
	if shown == res {
		return x.io.printJSON(json.RawMessage(out.Raw))
	}
	return x.io.printJSON(shown)
}

func getPrompt(ctx context.Context, x *job, c *actors.Conn) error {
	out, err := c.Call(ctx, actors.CallRequest{Kind: actors.KindPrompt, Name: x.sp.positionals[0], Args: x.args, Timeout: x.g.callTimeout(headlessTimeout)})
	if err != nil {
		return x.g.failed(err)
	}
	return x.io.printJSON(json.RawMessage(out.Raw))
}

func describeTool(ctx context.Context, x *job, c *actors.Conn) error {
	tools, err := c.Tools(ctx, false)
	if err != nil {
		return x.g.failed(err)
	}
	t, err := toolcheck.Find(tools, x.sp.positionals[0])
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	raw, err := c.RawTool(ctx, t.Name)
	if err != nil {
		return failed(err)
	}
	if raw == nil { // listed typed but not raw: cannot happen with our transports
		return x.io.printJSON(t)
	}
	return x.io.printJSON(raw) // the definition as the server sent it
}
