package cli

import (
	"encoding/json"
	"sort"
)

// conversion is one key=value argument sent as the type the tool's schema
// declares for it, reported by call --raw.
type conversion struct {
	Argument string `json:"argument"`
	From     string `json:"from"` // the word's value, as written
	To       any    `json:"to"`   // what was sent
	Type     string `json:"type"` // the schema's type
}

var (
	integerText = lazyRegexp(`^-?(0|[1-9][0-9]*)$`)
	numberText  = lazyRegexp(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// convertShorthand retypes the key=value arguments (shorthand) whose
// property the tool's schema (def, as the server sent it) declares as an
// integer, number or boolean, when the word reads as one: count=5 is sent
// as 5, not "5". A property that may be a string, has no plain type, or a
// word that does not read as the type keeps the string, for the server to
// judge. Numbers stay exact (json.Number).
func convertShorthand(def json.RawMessage, args map[string]any, shorthand map[string]bool) []conversion {
	props, ok := declaredTypes(def)
	if !ok {
		return nil
	}
	var out []conversion
	keys := make([]string, 0, len(shorthand))
	for k, ok := range shorthand {
		if ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		s, ok := args[k].(string)
		typ, declared := props(k)
		if !ok || !declared {
			continue
		}
		if v, name, ok := retype(s, schemaTypes(typ)); ok {
			args[k] = v
			out = append(out, conversion{Argument: k, From: s, To: v, Type: name})
		}
	}
	return out
}

// declaredTypes reads the "type" each property of the tool's input schema
// declares, as a lookup by property name.
func declaredTypes(def json.RawMessage) (func(name string) (json.RawMessage, bool), bool) {
	var tool struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(def, &tool) != nil {
		return nil, false
	}
	return func(name string) (json.RawMessage, bool) {
		raw, ok := tool.InputSchema.Properties[name]
		if !ok {
			return nil, false
		}
		var p struct {
			Type json.RawMessage `json:"type"`
		}
		_ = json.Unmarshal(raw, &p) // a boolean schema (true) declares no type
		return p.Type, true
	}, true
}

// schemaTypes reads a JSON Schema "type": one name or a list of names.
func schemaTypes(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// retype converts s to the first of types it reads as; never when the
// property may be a string.
func retype(s string, types []string) (any, string, bool) {
	for _, t := range types {
		if t == "string" {
			return nil, "", false
		}
	}
	for _, t := range types {
		switch {
		case t == "integer" && integerText().MatchString(s):
			return json.Number(s), t, true
		case t == "number" && numberText().MatchString(s):
			return json.Number(s), t, true
		case t == "boolean" && (s == "true" || s == "false"):
			return s == "true", t, true
		}
	}
	return nil, "", false
}
