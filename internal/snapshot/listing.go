package snapshot

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// Listing is everything one connection listed.
type Listing struct {
	Tools     []mcp.Tool
	Resources []mcp.Resource
	Templates []mcp.ResourceTemplate
	Prompts   []mcp.Prompt
	// Raw is every entry as the server sent it. When a kind has raw
	// entries, they are what is counted and compared (a change to an x-…
	// key is a change); the typed list is used only when it has none.
	Raw Raw
	// Has records which kinds were listed at all; a server without the
	// capability is not asked. A kind with entries counts as listed even if
	// its Has flag was left false.
	Has struct{ Tools, Resources, Templates, Prompts bool }
}

// kind is one of the four lists, reduced to what comparing needs: entries by
// key, each as canonical JSON.
type kind struct {
	name             string // "resource_templates"
	label            string // "Resource templates"
	singular, plural string // "resource template", "resource templates"
	listed           bool
	count            int // entries as listed, duplicates included
	entries          map[string]string
}

// kinds returns the four kinds in reporting order.
func (l Listing) kinds() []kind {
	return []kind{
		newKind("tools", "Tools", "tool", l.Has.Tools, l.Tools, l.Raw.Tools, func(t mcp.Tool) string { return t.Name }),
		newKind("resources", "Resources", "resource", l.Has.Resources, l.Resources, l.Raw.Resources, func(r mcp.Resource) string { return r.URI }),
		newKind("resource_templates", "Resource templates", "resource template", l.Has.Templates, l.Templates, l.Raw.Templates, templateKey),
		newKind("prompts", "Prompts", "prompt", l.Has.Prompts, l.Prompts, l.Raw.Prompts, func(p mcp.Prompt) string { return p.Name }),
	}
}

// newKind keys every entry; if a server lists one key twice, the later entry
// is the one compared.
func newKind[T any](name, label, singular string, has bool, items []T, raw []json.RawMessage, key func(T) string) kind {
	if len(raw) > 0 {
		k := kind{name: name, label: label, singular: singular, plural: singular + "s", listed: true, count: len(raw)}
		k.entries = make(map[string]string, len(raw))
		for _, r := range raw {
			k.entries[Read(r).Key(name)] = canonicalJSON(r)
		}
		return k
	}
	k := kind{name: name, label: label, singular: singular, plural: singular + "s", listed: has || len(items) > 0, count: len(items)}
	k.entries = make(map[string]string, len(items))
	for _, item := range items {
		k.entries[key(item)] = canonicalJSON(item)
	}
	return k
}

func templateKey(t mcp.ResourceTemplate) string {
	if t.URITemplate == nil || t.URITemplate.Template == nil {
		return ""
	}
	return t.URITemplate.Raw()
}
