package cli

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// newListCmds builds list-tools, list-resources and list-prompts.
func newListCmds(g *globals, version string) []*cobra.Command {
	return []*cobra.Command{
		newHeadlessCmd(g, version, headless{use: "list-tools [options] [-- target_command...]", short: "List the tools of a server as JSON",
			example: "  run-mcp list-tools -- node my-server.js\n  run-mcp list-tools -- http://localhost:3000/mcp", showStderr: true,
			raw: listRaw("tool"), run: listOf("tools")}),
		newHeadlessCmd(g, version, headless{use: "list-resources [options] [-- target_command...]", short: "List the resources and resource templates of a server as JSON",
			example: "  run-mcp list-resources -- node my-server.js", showStderr: true,
			raw: listRaw("resource and resource template"), run: listOf("resources", "resource_templates")}),
		newHeadlessCmd(g, version, headless{use: "list-prompts [options] [-- target_command...]", short: "List the prompts of a server as JSON",
			example: "  run-mcp list-prompts -- node my-server.js", showStderr: true,
			raw: listRaw("prompt"), run: listOf("prompts")}),
	}
}

// listRaw is what --raw prints for a listing of kind.
func listRaw(kind string) string {
	return "Print an object with every " + kind + ", the pages as the server sent them (nextCursor included), the kinds it does not declare, and stderr, stdout_noise, transport_errors and protocol"
}

// offers says whether the server declared the capability a kind needs.
func offers(info actors.Info, kind string) bool {
	switch kind {
	case "tools":
		return info.Capabilities.Tools != nil
	case "prompts":
		return info.Capabilities.Prompts != nil
	}
	return info.Capabilities.Resources != nil
}

func jsonKey(kind string) string {
	if kind == "resource_templates" {
		return "resourceTemplates"
	}
	return kind
}

// maxPages bounds the pages --raw follows, against a server whose cursors
// never end.
const maxPages = 1000

// listOf lists the given kinds once connected, one-shot or in a session.
// It prints the first kind's entries as a JSON array, each as the server
// sent it (3.0's shape; list-resources: the resources, its templates under
// --raw). --raw prints an object: every kind's entries, the pages as the
// server sent them (nextCursor included), the kinds the server does not
// declare, and what happened around the listing (stderr, stdout_noise,
// transport_errors, protocol).
func listOf(kinds ...string) op {
	return func(ctx context.Context, x *job, c *actors.Conn) error {
		w := startWatch(ctx, x, c)
		items := map[string][]json.RawMessage{}
		pages := map[string][]json.RawMessage{}
		undeclared := []string{}
		for _, kind := range kinds {
			if !offers(x.info, kind) {
				undeclared = append(undeclared, kind)
				items[kind] = []json.RawMessage{}
				continue
			}
			var err error
			if x.g.raw {
				pages[jsonKey(kind)], items[kind], err = allPages(ctx, c, kind)
			} else {
				items[kind], err = c.List(ctx, kind)
			}
			if err != nil {
				return x.g.failed(err)
			}
		}
		oneShot := x.g.bound == nil
		w.show(ctx, x)
		if oneShot && len(undeclared) == len(kinds) {
			// One-shot stderr carries status lines anyway; a session's stays
			// silent (the fact is in --raw).
			x.io.status("Note: the server does not declare the %s capability", kinds[0])
		}
		if !x.g.raw {
			if n := len(items["resource_templates"]); oneShot && n > 0 && kinds[0] == "resources" {
				x.io.status("Note: the server also offers %d resource template(s); list-resources --raw lists them", n)
			}
			return x.io.printJSON(orEmpty(items[kinds[0]]))
		}
		var fs []field
		for _, kind := range kinds {
			fs = append(fs, field{jsonKey(kind), orEmpty(items[kind])})
		}
		fs = append(fs, field{"pages", pages}, field{"undeclared", undeclared})
		obj, err := withFields(json.RawMessage("{}"), append(fs, w.fields(ctx, x.info.ProtocolVersion)...))
		if err != nil {
			return internalf("build the --raw listing: %v", err)
		}
		return x.io.printJSON(obj)
	}
}

// allPages lists one kind page by page, following nextCursor, and returns
// the pages as the server sent them and their entries.
func allPages(ctx context.Context, c *actors.Conn, kind string) (pages, items []json.RawMessage, err error) {
	cursor := ""
	seen := map[string]bool{}
	for range maxPages {
		page, err := c.Page(ctx, kind, cursor)
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, page)
		var p map[string]json.RawMessage
		if err := json.Unmarshal(page, &p); err != nil {
			return nil, nil, exitf(ExitToolError, "the server answered its %s listing with something that is not a JSON object (%s); a strict client would reject it. run-mcp validate checks the server", kind, wire.JSONWords(err))
		}
		var entries []json.RawMessage
		_ = json.Unmarshal(p[jsonKey(kind)], &entries)
		items = append(items, entries...)
		var next string
		_ = json.Unmarshal(p["nextCursor"], &next)
		if next == "" {
			return pages, items, nil
		}
		if seen[next] {
			return nil, nil, exitf(ExitToolError, "the server's %s listing repeats the cursor %q: it would never end. A server must give each page a new cursor", kind, clip(next))
		}
		seen[next], cursor = true, next
	}
	return nil, nil, exitf(ExitToolError, "the server's %s listing goes on past %d pages; run-mcp stops there", kind, maxPages)
}
