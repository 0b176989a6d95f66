package snapshot

import (
	"encoding/json"
)

// Raw holds every listed entry exactly as the server sent it: its bytes, its
// key order and the keys no library knows ($schema, allOf, x-…). Printers
// show these; the typed lists of a Listing serve only run-mcp's own checks.
type Raw struct {
	Tools, Resources, Templates, Prompts []json.RawMessage
}

// Of returns the raw entries of one kind ("tools", "resources",
// "resource_templates", "prompts").
func (r Raw) Of(kind string) []json.RawMessage {
	switch kind {
	case "tools":
		return r.Tools
	case "resources":
		return r.Resources
	case "resource_templates":
		return r.Templates
	case "prompts":
		return r.Prompts
	}
	return nil
}

// Entry is what run-mcp itself reads of a raw entry: its key and the words
// a summary line shows.
type Entry struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	URI         string `json:"uri"`
	URITemplate string `json:"uriTemplate"`
	Description string `json:"description"`
}

// Read decodes the fields of an Entry from one raw entry; an entry that is
// not a JSON object reads as empty.
func Read(raw json.RawMessage) Entry {
	var e Entry
	_ = json.Unmarshal(raw, &e)
	return e
}

// Key is the entry's identity within its kind ("tools", "resources",
// "resource_templates", "prompts"): a resource's URI, a template's URI
// template, a tool's or prompt's name.
func (e Entry) Key(kind string) string {
	switch kind {
	case "resources":
		return e.URI
	case "resource_templates":
		return e.URITemplate
	}
	return e.Name
}

// Items splits the raw result of one list page ({"tools":[…],
// "nextCursor":…}) into its entries under field, each as the server sent it.
func Items(page json.RawMessage, field string) ([]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(page, &m); err != nil {
		return nil, err
	}
	list, ok := m[field]
	if !ok || string(list) == "null" {
		return nil, nil
	}
	items := []json.RawMessage{}
	if err := json.Unmarshal(list, &items); err != nil {
		return nil, err
	}
	return items, nil
}
