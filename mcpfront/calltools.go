package mcpfront

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/intercept"
	"github.com/run-mcp/run-mcp/wire"
)

// shape turns a call's result into what the agent reads, after interception.
// untouched reports a tool result with nothing to intercept, which is then
// passed to the host as the target sent it.
func (f *front) shape(kind string, out *actors.Outcome, maxText int) (*mcp.CallToolResult, intercept.Stats, bool, error) {
	raw := out.Raw
	switch kind {
	case actors.KindTool:
		res := out.Tool // decoded already where the channel read a big answer
		if res == nil {
			var err error
			if res, err = wire.ParseToolResult(raw); err != nil {
				return nil, intercept.Stats{}, false, fmt.Errorf("the server's answer is not a valid tool result: %s", wire.JSONWords(err))
			}
		}
		shown, stats, err := f.ic.ToolResult(res, maxText)
		return shown, stats, err == nil && shown == res, err
	case actors.KindResource:
		res, err := mcp.ParseReadResourceResult(&raw)
		if err != nil {
			return nil, intercept.Stats{}, false, fmt.Errorf("the server's answer is not a valid resource: %s", wire.JSONWords(err))
		}
		shown, stats, err := f.ic.ResourceResult(res, maxText)
		if err != nil {
			return nil, stats, false, err
		}
		return resourceAsTool(shown), stats, false, nil
	default:
		res, err := mcp.ParseGetPromptResult(&raw)
		if err != nil {
			return nil, intercept.Stats{}, false, fmt.Errorf("the server's answer is not a valid prompt: %s", wire.JSONWords(err))
		}
		return promptAsTool(res), intercept.Stats{}, false, nil
	}
}

func resourceAsTool(r *mcp.ReadResourceResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{}
	for _, c := range r.Contents {
		switch v := c.(type) {
		case mcp.TextResourceContents:
			out.Content = append(out.Content, mcp.NewTextContent(v.Text))
		case mcp.BlobResourceContents:
			out.Content = append(out.Content, mcp.NewTextContent(fmt.Sprintf("[blob %s, %s, %d base64 chars kept inline]", v.URI, v.MIMEType, len(v.Blob))))
		}
	}
	if len(out.Content) == 0 {
		out.Content = []mcp.Content{mcp.NewTextContent("(the resource has no contents)")}
	}
	return out
}

func promptAsTool(p *mcp.GetPromptResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{}
	if p.Description != "" {
		out.Content = append(out.Content, mcp.NewTextContent("[DESCRIPTION] "+p.Description))
	}
	for _, m := range p.Messages {
		text := ""
		switch c := m.Content.(type) {
		case mcp.TextContent:
			text = c.Text
		default:
			b, _ := json.Marshal(c)
			text = string(b)
		}
		out.Content = append(out.Content, mcp.NewTextContent(fmt.Sprintf("[%s MESSAGE] %s", strings.ToUpper(string(m.Role)), text)))
	}
	return out
}

// withMetadata puts one metadata item before the result's own items, so
// the result's first item is content[1], as in 3.0: "--- metadata ---", the
// JSON, then, after a blank line, the lines for a person (one per input
// round, and what the server did with the progress token). The JSON ends at
// the first blank line (indented JSON has none), which is how a script
// reads it.
func withMetadata(res *mcp.CallToolResult, out *actors.Outcome, stats intercept.Stats) *mcp.CallToolResult {
	meta := map[string]any{
		"latency_ms":    out.Latency.Milliseconds(),
		"content_items": len(res.Content), "is_error": res.IsError, "truncated": stats.Truncated,
		"images_saved": stats.ImagesSaved, "audio_saved": stats.AudioSaved, "results_saved": stats.ResultsSaved,
		"original_size_bytes": stats.OriginalSizeBytes, "protocol": out.Protocol,
		"input_requests": inputCounts(out.Rounds),
		"progress":       map[string]any{"token": out.Token, "events": nonNil(out.Progress)},
	}
	if out.Shared {
		// A question that named no call paused this one beside others:
		// whose wait it was is not known, so the time is not split.
		meta["time_split"] = "not known: a question that named no call paused this call beside others in flight (see the rounds' shared_with)"
	} else {
		meta["server_ms"], meta["input_wait_ms"] = out.ServerTime.Milliseconds(), out.InputWait.Milliseconds()
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	lines := make([]string, 0, len(out.Rounds)+1)
	for i, r := range out.Rounds {
		lines = append(lines, fmt.Sprintf("Input round %d: %s", i+1, r.Line()))
	}
	lines = append(lines, progressLine(out.Progress))
	item := metadataHeading + string(b) + "\n\n" + strings.Join(lines, "\n")
	shown := *res
	shown.Content = append([]mcp.Content{mcp.NewTextContent(item)}, res.Content...)
	return &shown
}

// metadataHeading opens the metadata item (3.0's words).
const metadataHeading = "--- metadata ---\n"

// inputCounts is input_requests of the metadata: a count per kind of
// client-input request (every kind present, so a zero is visible), the
// total, and one entry per round.
func inputCounts(rounds []actors.Round) map[string]any {
	m := map[string]any{"elicitation": 0, "sampling": 0, "roots": 0, "total": len(rounds), "rounds": nonNil(rounds)}
	for _, r := range rounds {
		n, _ := m[r.Kind].(int)
		m[r.Kind] = n + 1
	}
	return m
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// progressLine says what the server did with the progress token it was offered.
func progressLine(events []actors.ProgressEvent) string {
	if len(events) == 0 {
		return "Progress: none — a progress token was offered and the server sent no notifications/progress"
	}
	last := events[len(events)-1]
	pos := trimFloat(last.Progress)
	if last.Total > 0 {
		pos += "/" + trimFloat(last.Total)
	}
	msg := ""
	if last.Message != "" {
		msg = fmt.Sprintf(" %q", last.Message)
	}
	return fmt.Sprintf("Progress: %d update(s) streamed; last %s%s at %.1fs.", len(events), pos, msg, last.At.Seconds())
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

func (f *front) list(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.ResolveWait(ctx, getStr(a, "connection"), true)
	if err != nil {
		return nil, err
	}
	types := getStrs(a, "type")
	if cursor := getStr(a, "cursor"); cursor != "" {
		if len(types) != 1 {
			return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "cursor needs exactly one type, since each kind pages separately"}
		}
		page, err := c.Page(ctx, types[0], cursor)
		if err != nil {
			return nil, err
		}
		b, _ := json.MarshalIndent(page, "", "  ")
		// 3.0's heading, as on every listing: a script that finds the
		// section by it finds the later pages too.
		return textResult(fmt.Sprintf("--- %s ---\n%s", title(types[0]), b)), nil
	}
	if len(types) == 0 {
		types = kinds
	}
	l, info, err := c.Listing(ctx)
	if err != nil {
		return nil, err
	}
	name := getStr(a, "name")
	shown := filterListing(l, name)
	if name != "" && noneOf(shown, types) {
		return nil, notListed(l, name, types)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s offers %s\n", info.Name, describeOffer(l))
	f.includeBlocks(&b, shown, types, getBool(a, "summary"))
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}

func (f *front) notifications(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.Resolve(getStr(a, "connection"), false)
	if err != nil {
		return nil, err
	}
	notes, total := c.Notifications(getInt(a, "count", 50), getStr(a, "method"), getBool(a, "clear"))
	var b strings.Builder
	if c.Phase() != actors.PhaseLive {
		st, _ := c.Status(ctx)
		fmt.Fprintf(&b, "Note: connection %s is not running (%s); these are what the server sent before.\n", c.Name(), st.Why)
	}
	method := getStr(a, "method")
	if len(notes) == 0 {
		// 3.0's words, with what to do about it.
		b.WriteString(noNotifications(c.Name(), method))
		return textResult(b.String()), nil
	}
	fmt.Fprintf(&b, "%d of %d matching notification(s)", len(notes), total)
	if method != "" {
		fmt.Fprintf(&b, " (method contains %q)", method)
	}
	if getBool(a, "clear") {
		b.WriteString("; the log was cleared")
	}
	b.WriteString("\n")
	if len(notes) > 0 {
		j, _ := json.MarshalIndent(notes, "", "  ")
		b.Write(j)
	}
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}

// noNotifications is the reply when nothing matches: 3.0's "No
// notifications", and how to get some.
func noNotifications(conn, method string) string {
	if method != "" {
		return fmt.Sprintf("No notifications with a method containing %q from connection %s. Leave out method to see every kind, or trigger one and look again.", method, conn)
	}
	return fmt.Sprintf("No notifications from connection %s yet. They arrive outside request/response: trigger one (a tool that changes the tool list, a resource update after subscribe_to_resource, a log message), then call get_server_notifications again.", conn)
}

func (f *front) subscribe(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	c, err := f.reg.ResolveWait(ctx, getStr(a, "connection"), true)
	if err != nil {
		return nil, err
	}
	uri, un := getStr(a, "uri"), getBool(a, "unsubscribe")
	st, err := c.Status(ctx)
	if err != nil {
		return nil, err
	}
	if st.Info != nil && mcp.IsModernProtocol(st.Info.ProtocolVersion) {
		return f.subscribeModern(ctx, c, uri, un)
	}
	warn := ""
	if st.Info != nil && (st.Info.Capabilities.Resources == nil || !st.Info.Capabilities.Resources.Subscribe) {
		warn = "\nWarning: the server does not advertise resources.subscribe in its capabilities, yet it was asked; a strict client would not subscribe."
	}
	if err := c.Subscribe(ctx, uri, un); err != nil {
		return nil, fmt.Errorf("the server refused to %s %s: %w%s", map[bool]string{false: "subscribe to", true: "unsubscribe from"}[un], uri, err, warn)
	}
	if un {
		return textResult("Unsubscribed from " + uri + "." + warn), nil
	}
	return textResult(fmt.Sprintf("Subscribed to %s. Trigger a change, then check get_server_notifications method=resources/updated.%s", uri, warn)), nil
}

// subscribeModern opens (or closes) a per-URI subscriptions/listen stream on
// a 2026-07-28 connection and reports what the server honored.
func (f *front) subscribeModern(ctx context.Context, c *actors.Conn, uri string, un bool) (*mcp.CallToolResult, error) {
	if un {
		stopped, err := c.StopListen(ctx, uri)
		if err != nil {
			return nil, err
		}
		if !stopped {
			return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "no listen stream is open for " + uri + "; subscribe_to_resource opens one"}
		}
		return textResult("Closed the subscriptions/listen stream for " + uri + " (notifications/cancelled sent)."), nil
	}
	s, err := c.Listen(ctx, mcp.SubscriptionFilter{ResourceSubscriptions: []string{uri}})
	if err != nil {
		return nil, fmt.Errorf("the server did not open a subscriptions/listen stream for %s: %w", uri, err)
	}
	return textResult(fmt.Sprintf("Subscribed to %s with a subscriptions/listen stream: %s.\nTrigger a change, then check get_server_notifications method=resources/updated.", uri, uriHonored(s, uri))), nil
}

func (f *front) readResult(_ context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	text, err := f.ic.Read(getStr(a, "id"), getInt(a, "offset", 0), getInt(a, "length", 0))
	if err != nil {
		return nil, err
	}
	return textResult(text), nil
}
