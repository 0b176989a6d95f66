package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// checker lists each kind raw and checks its entries.
type checker struct {
	r    *Report
	c    *actors.Conn
	caps mcp.ServerCapabilities
	// modern: a 2026-07-28 connection, where the legacy subscribe is gone.
	modern bool
}

// listAll lists one kind raw, following cursors. notServed reports a
// method-not-found answer.
func (ch *checker) listAll(ctx context.Context, method, key string) (items []json.RawMessage, notServed bool, err error) {
	cursor := ""
	for range 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := ch.c.Request(ctx, method, params)
		var te *actors.TargetError
		if errors.As(err, &te) && te.Code == mcp.METHOD_NOT_FOUND {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, err
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, false, fmt.Errorf("the %s result is not a JSON object: %s", method, wire.JSONWords(err))
		}
		var batch []json.RawMessage
		if err := json.Unmarshal(page[key], &batch); err != nil {
			return nil, false, fmt.Errorf("the %s result's %q is not an array", method, key)
		}
		items = append(items, batch...)
		var next string
		_ = json.Unmarshal(page["nextCursor"], &next)
		if next == "" {
			return items, false, nil
		}
		cursor = next
	}
	return items, false, fmt.Errorf("%s kept returning a nextCursor after 100 pages", method)
}

// capability checks one capability against what the server serves.
func (ch *checker) capability(ctx context.Context, name, method, key string, advertised bool) []json.RawMessage {
	check := name + "_capability"
	items, notServed, err := ch.listAll(ctx, method, key)
	switch {
	case advertised && notServed:
		ch.r.add(check, Fail, "%s is advertised but %s answers method not found", name, method)
	case advertised && err != nil:
		ch.r.add(check, Fail, "%s is advertised but %s failed: %v", name, method, firstLine(err.Error()))
	case advertised:
		ch.r.add(check, Pass, "advertised and served: %d item(s)", len(items))
		return items
	case notServed || err != nil:
		ch.r.add(check, Skip, "not advertised and not served")
	case len(items) > 0:
		ch.r.add(check, Warn, "%s is served (%d item(s)) but not advertised in capabilities; a strict client will never ask", name, len(items))
		return items
	default:
		ch.r.add(check, Warn, "%s answers with an empty list but is not advertised", method)
	}
	return nil
}

func (ch *checker) tools(ctx context.Context) {
	items := ch.capability(ctx, "tools", "tools/list", "tools", ch.caps.Tools != nil)
	ch.r.Tools = len(items)
	if items == nil {
		return
	}
	var problems, warnings []string
	seen := map[string]int{}
	for i, raw := range items {
		var t struct {
			Name         *string         `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil || t.Name == nil || *t.Name == "" {
			problems = append(problems, fmt.Sprintf("tool #%d has no name", i+1))
			continue
		}
		seen[*t.Name]++
		if t.Description == "" {
			warnings = append(warnings, fmt.Sprintf("%s has no description (agents choose tools by it)", *t.Name))
		}
		if msg := schemaProblem(t.InputSchema, true); msg != "" {
			problems = append(problems, fmt.Sprintf("%s inputSchema: %s", *t.Name, msg))
		}
		if len(t.OutputSchema) > 0 {
			if msg := schemaProblem(t.OutputSchema, false); msg != "" {
				problems = append(problems, fmt.Sprintf("%s outputSchema: %s", *t.Name, msg))
			}
		}
	}
	problems = append(problems, duplicates("tool", seen)...)
	ch.r.report("tool_schema_validation", len(items), "tool", problems, warnings)
}

// schemaProblem says what a client would reject in a tool schema: not an
// object, not of type object, or a required property never defined.
func schemaProblem(raw json.RawMessage, required bool) string {
	if len(raw) == 0 {
		if required {
			return "missing (a tool must declare an inputSchema)"
		}
		return ""
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal(raw, &s); err != nil {
		return "not a JSON object: " + clip(string(raw))
	}
	var typ string
	_ = json.Unmarshal(s["type"], &typ)
	if typ != "object" {
		return fmt.Sprintf(`type is %q, a client expects "object"`, typ)
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(s["properties"], &props)
	var req []string
	if len(s["required"]) > 0 && json.Unmarshal(s["required"], &req) != nil {
		return "required is not an array of names"
	}
	var undefined []string
	for _, name := range req {
		if _, ok := props[name]; !ok {
			undefined = append(undefined, name)
		}
	}
	if len(undefined) > 0 {
		return fmt.Sprintf("required %s never defined under properties", strings.Join(undefined, ", "))
	}
	return ""
}

func (ch *checker) resources(ctx context.Context) {
	items := ch.capability(ctx, "resources", "resources/list", "resources", ch.caps.Resources != nil)
	if items == nil {
		return
	}
	var problems, warnings []string
	seen := map[string]int{}
	for i, raw := range items {
		var res struct {
			URI  string `json:"uri"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || res.URI == "" {
			problems = append(problems, fmt.Sprintf("resource #%d has no uri", i+1))
			continue
		}
		seen[res.URI]++
		if res.Name == "" {
			warnings = append(warnings, fmt.Sprintf("%s has no name", res.URI))
		}
	}
	problems = append(problems, duplicates("resource", seen)...)
	ch.r.report("resource_validation", len(items), "resource", problems, warnings)
	ch.subscribe(ctx, items)
}

// subscribe checks that a server advertising resources.subscribe serves
// resources/subscribe (legacy era; 2026-07-28 replaced it with
// subscriptions/listen). It subscribes to the first resource and
// unsubscribes again.
func (ch *checker) subscribe(ctx context.Context, items []json.RawMessage) {
	if ch.caps.Resources == nil || !ch.caps.Resources.Subscribe || ch.modern || len(items) == 0 {
		return
	}
	var res struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(items[0], &res); err != nil || res.URI == "" {
		return
	}
	_, err := ch.c.Request(ctx, string(mcp.MethodResourcesSubscribe), map[string]any{"uri": res.URI})
	var te *actors.TargetError
	switch {
	case errors.As(err, &te) && te.Code == mcp.METHOD_NOT_FOUND:
		ch.r.add("resources_subscribe", Fail, "resources.subscribe is advertised but resources/subscribe answers method not found (-32601); a client that subscribes gets an error. Serve it, or drop subscribe from the capabilities")
	case err != nil:
		ch.r.add("resources_subscribe", Fail, "resources.subscribe is advertised but resources/subscribe %s failed: %v", res.URI, firstLine(err.Error()))
	default:
		ch.r.add("resources_subscribe", Pass, "advertised and served (subscribed to %s and unsubscribed)", res.URI)
		_, _ = ch.c.Request(ctx, string(mcp.MethodResourcesUnsubscribe), map[string]any{"uri": res.URI})
	}
}

func (ch *checker) prompts(ctx context.Context) {
	items := ch.capability(ctx, "prompts", "prompts/list", "prompts", ch.caps.Prompts != nil)
	if items == nil {
		return
	}
	var problems []string
	seen := map[string]int{}
	for i, raw := range items {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || p.Name == "" {
			problems = append(problems, fmt.Sprintf("prompt #%d has no name", i+1))
			continue
		}
		seen[p.Name]++
		for j, a := range p.Arguments {
			if a.Name == "" {
				problems = append(problems, fmt.Sprintf("%s argument #%d has no name", p.Name, j+1))
			}
		}
	}
	problems = append(problems, duplicates("prompt", seen)...)
	ch.r.report("prompt_validation", len(items), "prompt", problems, nil)
}

func duplicates(kind string, seen map[string]int) []string {
	var out []string
	for name, n := range seen {
		if n > 1 {
			out = append(out, fmt.Sprintf("duplicate %s %q (%d entries; a client keeps one)", kind, name, n))
		}
	}
	sort.Strings(out)
	return out
}

// report files one check from its problems (FAIL) and warnings (WARN).
func (r *Report) report(check string, n int, noun string, problems, warnings []string) {
	switch {
	case len(problems) > 0:
		r.add(check, Fail, "%s", summarize(problems))
	case len(warnings) > 0:
		r.add(check, Warn, "%s", summarize(warnings))
	default:
		r.add(check, Pass, "%d %s(s), all well-formed", n, noun)
	}
}

func summarize(items []string) string {
	if len(items) > 5 {
		return strings.Join(items[:5], "; ") + fmt.Sprintf("; and %d more", len(items)-5)
	}
	return strings.Join(items, "; ")
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func sortStrings(s []string) { sort.Strings(s) }

// listChangedStream opens a subscriptions/listen stream for every
// list_changed kind the server advertises and checks it honors them: a
// filter it accepts and never delivers on is invisible to a client.
func (ch *checker) listChangedStream(ctx context.Context) {
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = ch.caps.Tools != nil && ch.caps.Tools.ListChanged
	f.PromptsListChanged = ch.caps.Prompts != nil && ch.caps.Prompts.ListChanged
	f.ResourcesListChanged = ch.caps.Resources != nil && ch.caps.Resources.ListChanged
	if f.IsEmpty() {
		ch.r.add("list_changed_stream", Skip, "the server advertises no listChanged capability")
		return
	}
	s, err := ch.c.Listen(ctx, f)
	if err != nil {
		ch.r.add("list_changed_stream", Fail, "asked %s on subscriptions/listen: %v", actors.Describe(f), err)
		return
	}
	defer func() { _, _ = ch.c.StopListen(ctx, s.ID) }()
	if missing := actors.Unhonored(f, *s.Honored); missing != "" {
		ch.r.add("list_changed_stream", Warn, "advertised but not honored on subscriptions/listen: %s; those notifications will never arrive", missing)
		return
	}
	ch.r.add("list_changed_stream", Pass, "honored %s", actors.Describe(*s.Honored))
}
