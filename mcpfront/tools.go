package mcpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/didyoumean"
)

type handler func(ctx context.Context, args map[string]any) (*mcp.CallToolResult, error)

type toolDef struct {
	name, desc string
	schema     schema
	run        handler
}

var kinds = []string{"tools", "resources", "resource_templates", "prompts"}

func connectionArg() schema {
	return withRule(str("Which connection (the name given to connect_to_mcp; no control characters). Needed only while several are open."), connNameRule)
}

func (f *front) toolDefs() []toolDef {
	levels := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	rootsSchema := schema{"type": "array", "description": "Roots run-mcp answers the server's roots/list with (they persist across reconnects).",
		"items": object([]string{"uri"}, schema{"uri": withRule(str("A file:// URI."), fileURIRule), "name": str("A display name.")})}
	connectProps := func(withCommand bool) schema {
		p := schema{
			"include":            enumList("Also list these kinds in the reply.", kinds...),
			"summary":            boolean("With include: only names and descriptions instead of full JSON."),
			"roots":              rootsSchema,
			"log_level":          enum("Raise the server's logging verbosity (logging/setLevel).", levels...),
			"protocol":           str("Handshake: legacy (default), auto (probe 2026-07-28, fall back), or a revision to pin such as 2026-07-28."),
			"connect_timeout_ms": count("How long the handshake may take (default 30000)."),
			"request_timeout_ms": count("How long the server may take to answer each housekeeping request: the listings, subscribe, listen, ping (default from --request-timeout, 30000). Calls use timeout_ms."),
			"env":                envMap("Environment variables for the server (it inherits only PATH, HOME, SHELL, USER). Kept across reconnects."),
			"headers":            headerMap("HTTP headers for an http(s):// server (a bearer token, an API key), sent to its origin only and never shown. Kept across reconnects."),
			"oauth":              oauthSchema(),
		}
		if withCommand {
			p["command"] = str("The server's executable (node, python, ./server, …) or an http(s):// URL of a Streamable HTTP server.")
			p["args"] = strList("Arguments of the command.")
			p["cwd"] = str("Working directory for the server (default: run-mcp's).")
			p["server"] = str("Instead of command: the name of a server registered with a client on this machine (list_available_mcp_servers), launched with its command, args, cwd and env; SOURCE:NAME picks among several of that name.")
			p["name"] = withRule(str("A name for this connection, to keep several open (default \"default\"; no control characters)."), connNameRule)
		} else {
			p["connection"] = connectionArg()
		}
		return p
	}
	return []toolDef{
		{"connect_to_mcp", "Spawn an MCP server you are building (or reach one over HTTP) and connect to it. Use this first; include=[tools] lists what it offers. A failed start reports the exit code and the server's stderr. Give name to keep several open.",
			object(nil, connectProps(true)), f.connect},
		{"call_mcp_primitive", "Call a tool, read a resource (name = URI) or get a prompt on the connected server. auto_connect spawns the server first if needed. " +
			"include_metadata reports latency (server time vs time waiting on a person), client-input rounds and progress. " +
			"Tasks (2025-11-25): task runs a tool call as a task; type=task with name=<task id> then waits for that task's result, and cancel=true cancels it; mcp_server_status task=<id> shows its status.",
			object([]string{"type", "name"}, schema{
				"type":             enum("What to call: a tool, a resource, a prompt, or a task a tool call created (its result, or cancel=true).", primitiveKinds...),
				"name":             nonEmpty("Tool or prompt name, resource URI, or task id (type task)."),
				"arguments":        freeObject("Arguments of the tool or prompt."),
				"args":             freeObject("Alias of arguments (give one or the other)."),
				"auto_connect":     object(nil, schema{"command": str("Executable or URL."), "server": str("Instead of command: a registered server's name (list_available_mcp_servers)."), "args": strList("Arguments."), "env": envMap("Environment."), "headers": headerMap("HTTP headers for a URL."), "protocol": str("legacy, auto or a revision."), "cwd": str("Working directory.")}),
				"disconnect_after": boolean("Stop the server after this call."),
				"timeout_ms":       count("Server-time budget; paused while the server waits on client input (default from --timeout, 5 minutes)."),
				"include_metadata": boolean("Prepend timing, input rounds and progress. A question that names no call (a 2025-era stdio server with several calls in flight) pauses and is shared by all of them, and their time is then not split into server time and input wait."),
				"max_text_length":  integer("Bound the result's text to this many characters (-1: never); the whole text is saved for read_result."),
				"task":             taskSchema(),
				"cancel":           boolean("With type task: cancel the task (tasks/cancel) instead of waiting for its result."),
				"connection":       connectionArg(),
			}), nil},
		{"list_mcp_primitives", "List the connected server's tools, resources, resource templates and/or prompts.",
			object(nil, schema{"type": enumList("Kinds to list (default all).", kinds...), "name": str("Only items whose name or URI contains this."),
				"summary": boolean("Names and descriptions only."), "cursor": str("Page cursor (needs exactly one type)."), "connection": connectionArg()}), f.list},
		{"get_server_notifications", "Inspect the notifications the server emitted (list_changed, resources/updated, log messages, progress). They travel outside request/response, so a tool result never shows them.",
			object(nil, schema{"count": count("How many of the newest (default 50)."), "method": str("Only methods containing this, e.g. resources/updated or progress."),
				"clear": boolean("Empty the log after reading."), "connection": connectionArg()}), f.notifications},
		{"subscribe_to_resource", "Subscribe to (or unsubscribe from) a resource's updates, to exercise the server's subscription support. Then trigger a change and check get_server_notifications method=resources/updated.",
			object([]string{"uri"}, schema{"uri": str("The resource URI."), "unsubscribe": boolean("Unsubscribe instead."), "connection": connectionArg()}), f.subscribe},
		{"reconnect_to_mcp", "Restart the server after you edited its code, and see what changed (tools added, modified, removed). Settings not given are kept. Works on a crashed or disconnected connection too.",
			object(nil, connectProps(false)), f.reconnect},
		{"read_result", "Page through a result that was too long and was saved to disk (the id is in the [truncated at …] note).",
			object([]string{"id"}, schema{"id": str("The result id, e.g. r2."), "offset": count("Character offset (default 0)."), "length": count("How many characters (default and max: --max-text).")}), f.readResult},
		{"disconnect_from_mcp", "Stop the server without restarting it. Its record (stderr, exit) stays readable unless forget is true.",
			object(nil, schema{"connection": connectionArg(), "forget": boolean("Also drop the record.")}), f.disconnect},
		{"mcp_server_status", "Connection status: running or how the server died, PID, protocol, calls in flight, open tasks, stdout noise, and what the host forwards. Without connection, all of them. " +
			"task=<id> asks the server for one task's status instead (tasks/get).",
			object(nil, schema{"connection": connectionArg(), "task": nonEmpty("A task id (from call_mcp_primitive with task): ask the server for its status (tasks/get).")}), f.status},
		{"get_mcp_server_stderr", "The server's stderr, timestamped, with a cursor: without since, what the current process wrote (the first 100 and the last 1,000 lines); pass the since=N from the last reply to see only what came after.",
			object(nil, schema{"lines": positive("Only the last N lines (1 or more; leave it out for the current process's lines)."), "since": count("Only lines after this position (positions continue across reconnects)."),
				"timestamps": boolean("Prefix each line with its time and position (default true)."), "connection": connectionArg()}), f.stderr},
		{"validate_mcp_server", "Spawn a server command, connect, and report what a strict client would reject: stdout pollution, transport errors, crash output, and the exit and stderr of a server that dies.",
			object(nil, schema{"command": str("Executable or URL."), "server": str("Instead of command: a registered server's name (list_available_mcp_servers)."),
				"args": strList("Arguments."), "env": envMap("Environment."), "headers": headerMap("HTTP headers for a URL (never shown)."),
				"deep": boolean("Run every check and print each."), "protocol": str("legacy, auto or a revision."), "cwd": str("Working directory."),
				"request_timeout_ms": integer("How long the server may take to answer each request validate sends (default from --request-timeout, 30000).")}), f.validate},
		{"list_available_mcp_servers", "List the MCP servers registered with the clients on this machine (Claude Code, Cursor, VS Code, Codex, …), with the command to connect to each.",
			object(nil, schema{"filter": str("Only entries whose name, command, source or file contains this."), "file": str("Read this one config file instead of scanning.")}), f.available},
	}
}

// oauthSchema is how an http(s):// server's OAuth authorization identifies
// run-mcp, when it should not register itself.
func oauthSchema() schema {
	return object(nil, schema{
		"client_id":           str("The ID of a client registered with the server's authorization server (instead of registering one)."),
		"client_secret":       str("Its secret, if it has one (never shown)."),
		"client_metadata_url": str("The https URL of a client ID metadata document describing run-mcp, used as its client ID where the authorization server takes one."),
	})
}

// toolNames lists run-mcp's own tools, sorted.
func (f *front) toolNames() []string {
	var names []string
	for _, d := range f.toolDefs() {
		names = append(names, d.name)
	}
	slices.Sort(names)
	return names
}

// listTools encodes the tools/list result once: the host sees each tool's
// closed schema, the same one that checks its arguments.
func (f *front) listTools() (json.RawMessage, error) {
	defs := f.toolDefs()
	tools := make([]map[string]any, 0, len(defs))
	for _, d := range defs {
		tools = append(tools, map[string]any{"name": d.name, "description": d.desc, "inputSchema": d.schema})
	}
	return json.Marshal(map[string]any{"tools": tools})
}

// tool finds one of run-mcp's tools by name.
func (f *front) tool(name string) (toolDef, bool) {
	for _, d := range f.defs {
		if d.name == name {
			return d, true
		}
	}
	return toolDef{}, false
}

// unknownTool is the answer to a call of a tool run-mcp does not have:
// UNKNOWN_TOOL, a "did you mean" and the list of names.
func (f *front) unknownTool(name string) string {
	names := f.toolNames()
	text := fmt.Sprintf("UNKNOWN_TOOL: run-mcp has no tool %q.", name)
	if s := didyoumean.Closest(name, names); s != "" {
		text += fmt.Sprintf(" Did you mean %q?", s)
	}
	return text + " Its tools: " + strings.Join(names, ", ")
}

// runHandler runs a tool other than call_mcp_primitive on a goroutine of
// its own and answers with what it returns. A connect or reconnect is
// announced first, in reading order, so a call read after it waits for it.
func (f *front) runHandler(ctx context.Context, r *request, d toolDef, args map[string]any) {
	done := f.expect(d.name, args)
	hctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancel = cancel
	r.mu.Unlock()
	hctx = withRequest(hctx, r)
	f.handlers.Add(1)
	go func() {
		defer f.handlers.Done()
		defer cancel()
		defer done()
		f.replyTool(r, f.runTool(hctx, d, args))
	}()
}

// runTool runs a handler: an error is an error result, a panic is
// recovered and reported.
func (f *front) runTool(ctx context.Context, d toolDef, args map[string]any) (res *mcp.CallToolResult) {
	if ctx.Err() != nil {
		return errResult(&actors.CodedError{Code: actors.CodeCancelled, Msg: "the call was cancelled before it ran; nothing was done"})
	}
	defer func() {
		if p := recover(); p != nil {
			f.logf("internal error in %s: %v\n%s", d.name, p, debug.Stack())
			res = errResult(fmt.Errorf("run-mcp hit an internal error in %s (%v); the connection is kept. Please report it", d.name, p))
		}
	}()
	res, err := d.run(ctx, args)
	if err != nil {
		return errResult(f.notConnected(d.name, err))
	}
	return res
}

// expect announces a connect_to_mcp or reconnect_to_mcp of the connection
// its arguments name, until done is called.
func (f *front) expect(tool string, args map[string]any) (done func()) {
	switch tool {
	case "connect_to_mcp":
		return f.reg.Expect(getStr(args, "name"))
	case "reconnect_to_mcp":
		return f.reg.ExpectReconnect(getStr(args, "connection"))
	}
	return func() {}
}

// replyTool answers r with a tool result.
func (f *front) replyTool(r *request, res *mcp.CallToolResult) {
	f.replyJSON(r, res)
}

// notConnected puts 3.0's words after the code of a NO_CONNECTION error
// when no connection is live at all: "Not connected" for a call, "No target
// server connected" for the other tools (scripts and agents' prompts look for
// them). The code stays first; the rest of the message says how to connect.
func (f *front) notConnected(tool string, err error) error {
	ce, ok := err.(*actors.CodedError) // only a bare one: a wrapped one says more
	if !ok || ce.Code != actors.CodeNoConnection {
		return err
	}
	for _, c := range f.reg.Conns() {
		if c.Phase() == actors.PhaseLive {
			return err
		}
	}
	words := "No target server connected"
	if tool == "call_mcp_primitive" {
		words = "Not connected"
	}
	return &actors.CodedError{Code: ce.Code, Msg: words + ": " + ce.Msg}
}

func errResult(err error) *mcp.CallToolResult {
	return mcp.NewToolResultError(err.Error())
}

func textResult(s string) *mcp.CallToolResult { return mcp.NewToolResultText(s) }
