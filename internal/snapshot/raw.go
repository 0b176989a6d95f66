package snapshot

import (
	"bytes"
	"encoding/json"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
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
// The page is walked in place (a cold encoding/json decode of a tool list
// cost a one-shot list-tools about 0.2 ms); anything the walker does not
// take whole, an error included, is read by encoding/json instead, so the
// answer and the error are always encoding/json's.
func Items(page json.RawMessage, field string) ([]json.RawMessage, error) {
	if list, ok := jsonscan.Lookup(page, field); ok {
		if string(list) == "null" {
			return nil, nil
		}
		own := bytes.Clone(list) // the entries outlive the page's buffer
		items := []json.RawMessage{}
		if jsonscan.Array(own, func(v []byte) bool {
			items = append(items, json.RawMessage(v))
			return true
		}) {
			return items, nil
		}
	}
	return decodeItems(page, field)
}

// decodeItems is Items by encoding/json.
func decodeItems(page json.RawMessage, field string) ([]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(page, &m); err != nil {
		return nil, err
	}
	list, ok := m[field]
	if !ok || string(list) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil {
		return nil, err
	}
	return items, nil
}
