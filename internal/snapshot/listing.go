package snapshot

import "github.com/mark3labs/mcp-go/mcp"

// Listing is everything one connection listed.
type Listing struct {
	Tools     []mcp.Tool
	Resources []mcp.Resource
	Templates []mcp.ResourceTemplate
	Prompts   []mcp.Prompt
	// Has records which kinds were listed at all; a server without the
	// capability is not asked. A kind with entries counts as listed even if
	// its Has flag was left false.
	Has struct{ Tools, Resources, Templates, Prompts bool }
}

// kind is one of the four lists, reduced to what comparing needs: entries by
// key, each as canonical JSON.
type kind struct {
	label            string // "Resource templates"
	singular, plural string // "resource template", "resource templates"
	listed           bool
	count            int // entries as listed, duplicates included
	entries          map[string]string
}

// kinds returns the four kinds in reporting order.
func (l Listing) kinds() []kind {
	return []kind{
		newKind("Tools", "tool", l.Has.Tools, l.Tools, func(t mcp.Tool) string { return t.Name }),
		newKind("Resources", "resource", l.Has.Resources, l.Resources, func(r mcp.Resource) string { return r.URI }),
		newKind("Resource templates", "resource template", l.Has.Templates, l.Templates, templateKey),
		newKind("Prompts", "prompt", l.Has.Prompts, l.Prompts, func(p mcp.Prompt) string { return p.Name }),
	}
}

// newKind keys every entry; if a server lists one key twice, the later entry
// is the one compared.
func newKind[T any](label, singular string, has bool, items []T, key func(T) string) kind {
	k := kind{label: label, singular: singular, plural: singular + "s", listed: has || len(items) > 0, count: len(items)}
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
