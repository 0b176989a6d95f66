package mcpfront

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/snapshot"
)

// maxBlock is the size past which a kind's JSON falls back to names and
// descriptions, to keep the agent's context small.
const maxBlock = 20000

func describeOffer(l snapshot.Listing) string {
	return snapshot.Summary(l)
}

// includeBlocks writes the requested kinds as JSON (or a summary), each
// entry as the server sent it.
func (f *front) includeBlocks(b *strings.Builder, l snapshot.Listing, kinds []string, summary bool) {
	for _, k := range kinds {
		items := rawOf(l, k)
		lines := make([]string, 0, len(items))
		for _, raw := range items {
			e := snapshot.Read(raw)
			switch k {
			case "resources":
				lines = append(lines, summaryLine(e.URI, firstNonEmpty(e.Description, e.Name)))
			case "resource_templates":
				lines = append(lines, summaryLine(e.URITemplate, firstNonEmpty(e.Description, e.Name)))
			default:
				lines = append(lines, summaryLine(e.Name, e.Description))
			}
		}
		// 3.0's section headings, which agents' prompts look for.
		fmt.Fprintf(b, "\n--- %s ---\n", title(k))
		if !offered(l, k) {
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

// rawOf is one kind's entries as the server sent them; a listing built
// without them (none of ours) falls back to the typed entries.
func rawOf(l snapshot.Listing, kind string) []json.RawMessage {
	if raw := l.Raw.Of(kind); raw != nil {
		return raw
	}
	var typed any
	switch kind {
	case "tools":
		typed = l.Tools
	case "resources":
		typed = l.Resources
	case "resource_templates":
		typed = l.Templates
	case "prompts":
		typed = l.Prompts
	}
	b, _ := json.Marshal(typed)
	var out []json.RawMessage
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = []json.RawMessage{}
	}
	return out
}

func offered(l snapshot.Listing, kind string) bool {
	switch kind {
	case "tools":
		return l.Has.Tools
	case "resources":
		return l.Has.Resources
	case "resource_templates":
		return l.Has.Templates
	case "prompts":
		return l.Has.Prompts
	}
	return false
}

func title(kind string) string {
	return map[string]string{"tools": "Tools", "resources": "Resources", "resource_templates": "Resource Templates", "prompts": "Prompts"}[kind]
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
	in := func(s string) bool { return s != "" && strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }
	keep := func(kind string) []json.RawMessage {
		out := []json.RawMessage{}
		for _, raw := range rawOf(l, kind) {
			e := snapshot.Read(raw)
			if in(e.Name) || in(e.URI) || in(e.URITemplate) {
				out = append(out, raw)
			}
		}
		return out
	}
	out := l
	out.Raw.Tools, out.Raw.Resources, out.Raw.Templates, out.Raw.Prompts = keep("tools"), keep("resources"), keep("resource_templates"), keep("prompts")
	return out
}

// noneOf reports whether l has no entry of any of kinds.
func noneOf(l snapshot.Listing, kinds []string) bool {
	for _, k := range kinds {
		if len(rawOf(l, k)) > 0 {
			return false
		}
	}
	return true
}

// maxAvailable is how many names of one kind a "not found" reply lists.
const maxAvailable = 50

// notListed is a name filter that matched nothing, in 3.0's words
// (`Tool "x" not found`, `Available: …`), with the names that are there.
func notListed(l snapshot.Listing, sub string, kinds []string) error {
	noun := map[string]string{"tools": "Tool", "resources": "Resource", "resource_templates": "Resource template", "prompts": "Prompt"}[kinds[0]]
	var avail []string
	for _, k := range kinds {
		var keys []string
		for _, raw := range rawOf(l, k) {
			keys = append(keys, snapshot.Read(raw).Key(k))
		}
		if len(keys) > maxAvailable {
			keys = append(keys[:maxAvailable], fmt.Sprintf("+%d more", len(keys)-maxAvailable))
		}
		avail = append(avail, keys...)
	}
	list := "nothing (the server lists none of these kinds)"
	if len(avail) > 0 {
		list = strings.Join(avail, ", ")
	}
	msg := fmt.Sprintf("%s %q not found: no %s has a name or URI containing it (any case). Available: %s", noun, sub, strings.Join(kindWords(kinds), ", "), list)
	if slices.Contains(kinds, "tools") {
		return &actors.CodedError{Code: actors.CodeUnknownTool, Msg: msg}
	}
	return errors.New(msg)
}

func kindWords(kinds []string) []string {
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, strings.ReplaceAll(strings.TrimSuffix(k, "s"), "_", " "))
	}
	return out
}
