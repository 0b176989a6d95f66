package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// contextBackground is for budgets computed on the actor, where no
// command's context applies.
var contextBackground = context.Background()

// listing lists what the server offers, per capability it declared: each
// entry as the server sent it, and typed for run-mcp's own checks. Each
// request is bounded by the housekeeping budget.
func (c *Conn) listing(ctx context.Context, s *session) (snapshot.Listing, error) {
	var l snapshot.Listing
	caps, err := ask(ctx, c, func(*connState) mcp.ServerCapabilities { return s.init.Capabilities })
	if err != nil {
		return l, err
	}
	if caps.Tools != nil {
		raw, err := c.listAll(ctx, s, "tools")
		if err != nil {
			return l, err
		}
		l.Tools, l.Raw.Tools, l.Has.Tools = decodeTools(raw), raw, true
	}
	if caps.Resources != nil {
		raw, err := c.listAll(ctx, s, "resources")
		if err != nil {
			return l, err
		}
		l.Resources, l.Raw.Resources, l.Has.Resources = decodeAll[mcp.Resource](raw), raw, true
		if traw, err := c.listAll(ctx, s, "resource_templates"); err == nil {
			l.Templates, l.Raw.Templates, l.Has.Templates = decodeAll[mcp.ResourceTemplate](traw), traw, true
		}
	}
	if caps.Prompts != nil {
		raw, err := c.listAll(ctx, s, "prompts")
		if err != nil {
			return l, err
		}
		l.Prompts, l.Raw.Prompts, l.Has.Prompts = decodeAll[mcp.Prompt](raw), raw, true
	}
	return l, nil
}

func decodeAll[T any](raw []json.RawMessage) []T {
	out := make([]T, 0, len(raw))
	for _, r := range raw {
		var v T
		if json.Unmarshal(r, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// listKinds are the four lists: the request that lists each, and the field
// of a page that holds its entries.
var listKinds = map[string]struct{ method, field string }{
	"tools":              {string(mcp.MethodToolsList), "tools"},
	"resources":          {string(mcp.MethodResourcesList), "resources"},
	"resource_templates": {string(mcp.MethodResourcesTemplatesList), "resourceTemplates"},
	"prompts":            {string(mcp.MethodPromptsList), "prompts"},
}

// listMethod names the request that lists one kind.
func listMethod(kind string) string { return listKinds[kind].method }

// listAll lists every entry of one kind, page by page, each as the server
// sent it.
func (c *Conn) listAll(ctx context.Context, s *session, kind string) ([]json.RawMessage, error) {
	k, ok := listKinds[kind]
	if !ok {
		return nil, coded(CodeInvalidArgument, "cannot list %q: use tools, resources, resource_templates or prompts", kind)
	}
	budget := c.requestBudget(ctx, s.cfg)
	raw := []json.RawMessage{}
	seen := map[string]bool{}
	cursor := ""
	for {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		page, err := c.exchange(ctx, s, k.method, params, budget, "")
		if err != nil {
			return nil, wrapMethod(k.method, err)
		}
		items, err := snapshot.Items(page, k.field)
		if err != nil {
			return nil, fmt.Errorf("%s: the page the server sent is not a list of %s: %s", k.method, k.field, wire.JSONWords(err))
		}
		raw = append(raw, items...)
		next, err := nextCursor(page)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k.method, err)
		}
		if next == "" {
			if kind == "tools" {
				kept, excluded := headerChecked(s, raw)
				if len(excluded) > 0 {
					_ = c.do(context.WithoutCancel(ctx), func(*connState) { noteExcluded(s, excluded) })
				}
				raw = kept
			}
			return raw, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("the server's %s listing repeats the cursor %q: it would never end. A server must give each page a new cursor", k.field, clipCursor(next))
		}
		seen[next], cursor = true, next
	}
}

// wrapMethod prefixes the method a failure came from, unless the error
// already names it (a timeout does).
func wrapMethod(method string, err error) error {
	var rt *RequestTimeoutError
	if errors.As(err, &rt) {
		return err
	}
	return fmt.Errorf("%s: %w", method, err)
}
