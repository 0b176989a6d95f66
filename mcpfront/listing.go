package mcpfront

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/run-mcp/run-mcp/internal/snapshot"
)

// maxBlock is the size past which a kind's JSON falls back to names and
// descriptions, to keep the agent's context small.
const maxBlock = 20000

func describeOffer(l snapshot.Listing) string {
	return snapshot.Summary(l)
}

// includeBlocks writes the requested kinds as JSON (or a summary).
func (f *front) includeBlocks(b *strings.Builder, l snapshot.Listing, kinds []string, summary bool) {
	for _, k := range kinds {
		var items any
		var lines []string
		has := true
		switch k {
		case "tools":
			items, has = l.Tools, l.Has.Tools
			for _, t := range l.Tools {
				lines = append(lines, summaryLine(t.Name, t.Description))
			}
		case "resources":
			items, has = l.Resources, l.Has.Resources
			for _, r := range l.Resources {
				lines = append(lines, summaryLine(r.URI, firstNonEmpty(r.Description, r.Name)))
			}
		case "resource_templates":
			items, has = l.Templates, l.Has.Templates
			for _, t := range l.Templates {
				lines = append(lines, summaryLine(t.URITemplate.Raw(), firstNonEmpty(t.Description, t.Name)))
			}
		case "prompts":
			items, has = l.Prompts, l.Has.Prompts
			for _, p := range l.Prompts {
				lines = append(lines, summaryLine(p.Name, p.Description))
			}
		}
		fmt.Fprintf(b, "\n%s (%d):\n", title(k), len(lines))
		if !has {
			b.WriteString("(the server does not declare this capability)\n")
			continue
		}
		if summary {
			b.WriteString(strings.Join(lines, "\n") + "\n")
			continue
		}
		j, _ := json.MarshalIndent(items, "", "  ")
		if len(j) > maxBlock {
			fmt.Fprintf(b, "(%d chars of JSON; showing names and descriptions — list_mcp_primitives with a name filter shows the full entries)\n", len(j))
			b.WriteString(strings.Join(lines, "\n") + "\n")
			continue
		}
		b.Write(j)
		b.WriteString("\n")
	}
}

func title(kind string) string {
	return map[string]string{"tools": "Tools", "resources": "Resources", "resource_templates": "Resource templates", "prompts": "Prompts"}[kind]
}

func summaryLine(name, desc string) string {
	if desc == "" {
		return "- " + name
	}
	return "- " + name + ": " + strings.SplitN(desc, "\n", 2)[0]
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// filterListing keeps entries whose name or URI contains sub.
func filterListing(l snapshot.Listing, sub string) snapshot.Listing {
	if sub == "" {
		return l
	}
	in := func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }
	out := l
	out.Tools, out.Resources, out.Templates, out.Prompts = nil, nil, nil, nil
	for _, t := range l.Tools {
		if in(t.Name) {
			out.Tools = append(out.Tools, t)
		}
	}
	for _, r := range l.Resources {
		if in(r.URI) || in(r.Name) {
			out.Resources = append(out.Resources, r)
		}
	}
	for _, t := range l.Templates {
		if in(t.URITemplate.Raw()) || in(t.Name) {
			out.Templates = append(out.Templates, t)
		}
	}
	for _, p := range l.Prompts {
		if in(p.Name) {
			out.Prompts = append(out.Prompts, p)
		}
	}
	return out
}
