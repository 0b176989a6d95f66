package cli

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/toolcheck"
	"github.com/run-mcp/run-mcp/wire"
)

// newReadCmds builds read, get-prompt and describe.
func newReadCmds(g *globals, version string) []*cobra.Command {
	return []*cobra.Command{
		newHeadlessCmd(g, version, headless{use: "read [options] <uri> [-- target_command...]", short: "Read one resource and print it as JSON",
			example: "  run-mcp read demo://counter -- run-mcp demo-server", layout: layout{positionals: 1}, saves: true, calls: true, showStderr: true,
			raw: "Print the resources/read result plus stderr, stdout_noise, transport_errors and protocol", run: readResource}),
		newHeadlessCmd(g, version, headless{use: "get-prompt [options] <name> [json_args | key=value ... | - | @file] [-- target_command...]",
			short: "Get one prompt and print it as JSON (prompt arguments are strings)", layout: layout{positionals: 1, argWords: true}, stringArgs: true,
			long:    "Get one prompt and print the prompts/get result as JSON.\n\n" + argumentsHelp + "\nPrompt arguments are strings, so key:=json is refused.",
			example: "  run-mcp get-prompt greet name=Ada -- run-mcp demo-server\n  run-mcp get-prompt greet @args.json -- run-mcp demo-server",
			calls:   true, showStderr: true,
			raw: "Print the prompts/get result plus stderr, stdout_noise, transport_errors and protocol", run: getPrompt}),
		newHeadlessCmd(g, version, headless{use: "describe [options] <tool> [-- target_command...]", short: "Print one tool's description and schemas as JSON",
			example: "  run-mcp describe echo -- run-mcp demo-server", layout: layout{positionals: 1}, showStderr: true,
			raw: `Print {"tool": …} plus stderr, stdout_noise, transport_errors and protocol`, run: describeTool}),
	}
}

// readResource prints the resources/read result as the server sent it
// (media and long text intercepted). --raw adds what happened around the
// read: stderr, stdout_noise, transport_errors and protocol, as call --raw.
func readResource(ctx context.Context, x *job, c *actors.Conn) error {
	w := startWatch(ctx, x, c)
	req := actors.CallRequest{Kind: actors.KindResource, Name: x.sp.positionals[0], Timeout: x.g.callTimeout(headlessTimeout)}
	done := x.io.fb.wait(callWhat(req))
	out, err := c.Call(ctx, req)
	done()
	if err != nil {
		return x.g.failed(err)
	}
	res, err := mcp.ParseReadResourceResult(&out.Raw)
	if err != nil {
		return exitf(ExitToolError, "the server answered resources/read with something that is not a valid resource (%s); a strict client would reject it. Run it with --raw to see the answer, or run-mcp validate", wire.JSONWords(err))
	}
	ic, err := x.interceptor()
	if err != nil {
		return err
	}
	shown, _, err := ic.ResourceResult(res, 0)
	if err != nil {
		return saveFailed(err)
	}
	var body any = json.RawMessage(out.Raw)
	if shown != res {
		body = shown
	}
	return x.printAround(ctx, w, body)
}

// getPrompt prints the prompts/get result as the server sent it; --raw adds
// what happened around it, as read --raw.
func getPrompt(ctx context.Context, x *job, c *actors.Conn) error {
	w := startWatch(ctx, x, c)
	req := actors.CallRequest{Kind: actors.KindPrompt, Name: x.sp.positionals[0], Args: rawArgs(x.args), Timeout: x.g.callTimeout(headlessTimeout)}
	done := x.io.fb.wait(callWhat(req))
	out, err := c.Call(ctx, req)
	done()
	if err != nil {
		return x.g.failed(err)
	}
	return x.printAround(ctx, w, json.RawMessage(out.Raw))
}

// describeTool prints the one tool object as the server sent it. --raw
// prints {"tool": …} with what happened around the listing.
func describeTool(ctx context.Context, x *job, c *actors.Conn) error {
	w := startWatch(ctx, x, c)
	tools, err := c.Tools(ctx, false)
	if err != nil {
		return x.g.failed(err)
	}
	t, err := toolcheck.Find(tools, x.sp.positionals[0])
	if err != nil {
		return unknownTool(err)
	}
	raw, err := c.RawTool(ctx, t.Name)
	if err != nil {
		return x.g.failed(err)
	}
	var def any = raw // the definition as the server sent it
	if raw == nil {   // listed typed but not raw: cannot happen with our transports
		def = t
	}
	if !x.g.raw {
		w.show(ctx, x)
		return x.io.printJSON(def)
	}
	return x.printAround(ctx, w, map[string]any{"tool": def})
}

// printAround prints body, and with --raw the fields of what happened
// around the request after its own keys.
func (x *job) printAround(ctx context.Context, w *watch, body any) error {
	w.show(ctx, x)
	if !x.g.raw {
		return x.io.printJSON(body)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return internalf("encode the result: %v", err)
	}
	merged, err := withFields(b, w.fields(ctx, x.info.ProtocolVersion))
	if err != nil {
		return exitf(ExitToolError, "the server's answer is not a JSON object, so --raw cannot add to it (%v); run without --raw to see it", err)
	}
	return x.io.printJSON(merged)
}
