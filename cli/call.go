package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/internal/toolcheck"
	"github.com/run-mcp/run-mcp/wire"
)

func newCallCmd(g *globals, version string) *cobra.Command {
	cmd := newHeadlessCmd(g, version, headless{
		use:   "call [options] <tool> [json_args | key=value key:=json ... | - | @file] [-- target_command...]",
		short: "Call one tool and print its result as JSON",
		long:  "Call one tool and print the content array of its result as JSON (exit 1 when the tool reports isError).\n\n" + argumentsHelp,
		example: `  run-mcp call greet name=Alice count:=5 -- node my-server.js
  run-mcp call search '{"q":"hello"}' --raw -- node my-server.js
  jq -n '{q: "hello"}' | run-mcp call search - -- node my-server.js
  run-mcp call search @args.json --session dev`,
		layout:     layout{positionals: 1, argWords: true},
		saves:      true,
		calls:      true,
		showStderr: true,
		raw:        "Print the whole tool result plus stderr, stdout_noise, transport_errors, input_requests, progress, protocol and conversions",
		run:        callTool,
	})
	cmd.Flags().BoolVar(&g.task, "task", false, "Call the tool as a task (2025-11-25 task-augmented request) and wait for its result (tasks/result) within --timeout")
	return cmd
}

// callTool is call once connected, one-shot or in a session.
func callTool(ctx context.Context, x *job, c *actors.Conn) error {
	ic, err := x.interceptor()
	if err != nil {
		return err
	}
	req := actors.CallRequest{Kind: actors.KindTool, Name: x.sp.positionals[0], Timeout: x.g.callTimeout(headlessTimeout)}
	if x.g.task {
		req.Task = &actors.TaskParams{Wait: true}
	}
	return runCall(ctx, x, ic, c, req)
}

// interceptor is the one the command checked before spawning, or, for a
// session's request (nothing was spawned), one built and checked now.
func (x *job) interceptor() (*intercept.Interceptor, error) {
	if x.ic == nil {
		ic, err := x.g.interceptor()
		if err != nil {
			return nil, err
		}
		x.ic = ic
	}
	return x.ic, nil
}

// stderrSettle is how long a call's stderr must stay quiet before --raw and
// --show-stderr take it as complete.
const stderrSettle = 10 * time.Millisecond

// runCall checks the call against the tool list, runs it and prints the
// result's content array (--raw: the whole envelope); isError exits 1
// after the result is printed.
func runCall(ctx context.Context, x *job, ic *intercept.Interceptor, c *actors.Conn, req actors.CallRequest) error {
	io, g := x.io, x.g
	tools, err := c.Tools(ctx, false)
	if err != nil {
		return g.failed(err)
	}
	if _, err := toolcheck.Check(tools, req.Name, x.args); err != nil {
		return unknownTool(err)
	}
	var conversions []conversion
	if len(x.shorthand) > 0 {
		if def, err := c.RawTool(ctx, req.Name); err == nil && def != nil {
			conversions = convertShorthand(def, x.args, x.shorthand)
		}
	}
	req.Args = rawArgs(x.args) // after the shorthand took the schema's types
	if io.fb != nil {
		req.OnProgress = io.fb.progress
	}
	done := io.fb.wait(callWhat(req))
	out, err := c.Call(ctx, req)
	done()
	// A one-shot server lived for this call alone: what it wrote from its
	// start (a console.log or a banner at start-up, the most common case)
	// belongs to the call. A session's server has a longer life: only what
	// it wrote during the call.
	oneShot := g.bound == nil
	var stderr []string
	if (g.showStderr || g.raw) && out != nil {
		if oneShot {
			stderr = out.StderrFromStart(stderrSettle).Render(false)
		} else {
			stderr = out.StderrDuring(stderrSettle).Render(false)
		}
	}
	if g.showStderr {
		for _, l := range stderr {
			io.status("[server stderr] %s", l)
		}
		if !oneShot && out != nil && !out.HasProcess() {
			// One-shot, the Connected line said so already.
			io.status("run-mcp: --show-stderr has nothing to show: %s", httpLimits)
		}
		if !oneShot && out != nil {
			// A session prints nothing on stderr unless asked; one-shot
			// warns once for the server's whole life (see oneShot).
			warnNoise(io, out.Evidence)
		}
	}
	if err != nil {
		return g.failed(err)
	}
	res := out.Tool // decoded already where the channel read a big answer
	if res == nil {
		if res, err = wire.ParseToolResult(out.Result()); err != nil {
			if g.raw { // show the answer as it came, so the mistake can be seen
				_ = io.printJSON(json.RawMessage(out.Result()))
			}
			e := exitf(ExitToolError, "the server answered tools/call with something that is not a valid tool result (%s); a strict client would reject it. Run it with --raw to see the answer, or run-mcp validate", wire.JSONWords(err))
			e.Printed = g.raw // stdout holds the answer: no envelope after it
			return e
		}
	}
	shown, _, err := ic.ToolResult(res, 0)
	if err != nil {
		return saveFailed(err)
	}
	var body any = shown
	if shown == res { // untouched: print it as the server sent it
		body = json.RawMessage(out.Result())
	}
	if g.raw {
		ev := out.Evidence
		if oneShot {
			if all, err := c.Evidence(ctx); err == nil {
				ev = all
			}
		}
		body, err = envelope(body, out, stderr, ev, conversions, redirectsField(ctx, c, out.HasProcess()))
		if err != nil {
			return err
		}
	} else if out.Unanswered {
		body = json.RawMessage(out.Result()) // its questions, as the server asked them
	} else if body, err = member(body, "content"); err != nil {
		return err
	}
	if err := io.printJSON(body); err != nil {
		return err
	}
	if res.IsError {
		return &ExitError{Code: ExitToolError, Quiet: true, Err: errors.New("the tool reported isError")}
	}
	if out.Unanswered {
		// A 2026-07-28 server that still requires input: headless, nobody
		// can give it (forms are declined, sampling refused), so the call
		// did not complete, as a legacy server's isError says.
		e := exitf(ExitToolError, "the server still requires input that nobody can give from a shell (its forms are declined and sampling refused), "+
			"so the call did not complete; the answer printed is its last input_required. Test that path through the agent server, whose host can answer")
		e.Printed = true // stdout holds the answer
		return e
	}
	return nil
}

// unknownTool words a call the tool list refuses as 3.0 did: `Tool "gret"
// not found. Did you mean "greet"?` then `Available tools: …` (exit 64).
func unknownTool(err error) error {
	var ut *toolcheck.UnknownToolError
	if !errors.As(err, &ut) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	msg := fmt.Sprintf("Tool %q not found.", ut.Name)
	if ut.Suggestion != "" {
		msg += fmt.Sprintf(" Did you mean %q?", ut.Suggestion)
	}
	e := exitf(ExitUsage, "%s\nAvailable tools: %s", msg, strings.Join(ut.Names, ", "))
	if len(ut.Names) == 0 {
		e = exitf(ExitUsage, "%s The server lists no tools.", msg)
	}
	e.Kind = actors.CodeUnknownTool
	return e
}

// saveFailed is a result whose media or long text could not be written to
// the output directory: the disk's or the directory's trouble, not a bug.
func saveFailed(err error) error {
	return exitf(ExitToolError, "cannot save part of the result to the output directory: %v. Free some space, or pass another --out-dir", err)
}

// member is one key of a JSON object, as written (an empty array when it is
// missing: content is required, but a server may omit it).
func member(obj any, key string) (json.RawMessage, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, internalf("encode the result: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, internalf("the result is not a JSON object: %v", err)
	}
	if v, ok := m[key]; ok && string(v) != "null" {
		return v, nil
	}
	return json.RawMessage("[]"), nil
}

// envelope merges the result with what happened around it, for --raw. The
// result's own keys come first, in the server's order and with its numbers
// as written; ev is the stdout noise and transport errors to report.
func envelope(result any, out *actors.Outcome, stderr []string, ev wire.EvidenceSnapshot, conversions []conversion, redirects []field) (json.RawMessage, error) {
	b, err := json.Marshal(result)
	if err != nil {
		return nil, internalf("encode the result: %v", err)
	}
	extra := []field{{"stderr", orEmpty(stderr)}}
	if !out.HasProcess() {
		extra = append(extra, field{"stderr_unavailable", httpLimits})
	}
	extra = append(extra, redirects...)
	extra = append(extra, noiseFields(ev)...)
	extra = append(extra, field{"transport_errors", orEmpty(ev.Errors)},
		field{"input_requests", inputRequests(out)},
		field{"progress", map[string]any{"token": out.Token, "events": orEmpty(out.Progress)}},
		field{"protocol", out.Protocol}, field{"conversions", orEmpty(conversions)})
	if out.Task != nil {
		extra = append(extra, field{"task", out.Task})
	}
	merged, err := withFields(b, extra)
	if err != nil {
		return nil, internalf("merge the result with what happened around it: %v", err)
	}
	return merged, nil
}

// noiseFields are the stdout noise of ev as --raw shows it: stdout_noise
// holds the lines as strings, as 3.0 printed them (scripts join and grep
// them), and stdout_noise_detail the same lines with when each arrived and
// its position among every line the server wrote to stdout.
func noiseFields(ev wire.EvidenceSnapshot) []field {
	lines := make([]string, len(ev.Noise))
	for i, n := range ev.Noise {
		lines[i] = n.Text
	}
	return []field{{"stdout_noise", lines}, {"stdout_noise_detail", orEmpty(ev.Noise)}}
}

// field is one key and value added to a JSON object.
type field struct {
	key string
	val any
}

// withFields returns the JSON object obj with fields added after its own
// keys (a key of obj that a field names is replaced), leaving every other
// key, its order and its bytes as they were.
func withFields(obj json.RawMessage, fields []field) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("the result is not a JSON object")
	}
	replaced := map[string]bool{}
	for _, f := range fields {
		replaced[f.key] = true
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	sep := func() {
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if replaced[key] {
			continue
		}
		sep()
		k, _ := json.Marshal(key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(val)
	}
	for _, f := range fields {
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		sep()
		k, _ := json.Marshal(f.key)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func inputRequests(out *actors.Outcome) map[string]any {
	counts := map[string]int{}
	for _, r := range out.Rounds {
		counts[r.Kind]++
	}
	return map[string]any{"counts": counts, "wait_ms": out.InputWait.Milliseconds(), "rounds": orEmpty(out.Rounds),
		"note": fmt.Sprintf("headless: elicitation is declined and sampling refused (%d round(s))", len(out.Rounds))}
}

// rawArgs encodes the arguments for the server: numbers go as they were
// written (json.Number), nil as no arguments.
func rawArgs(args map[string]any) json.RawMessage {
	if args == nil {
		return nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	return b
}
