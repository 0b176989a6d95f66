package snapshot

import (
	"bytes"
	"encoding/json"
)

// canonicalJSON encodes v with object keys sorted, so entries that differ
// only in key order (for example schema property order) compare equal.
// Numbers keep their literal text. An entry that cannot be encoded is
// represented by its error, so it still compares equal to itself.
func canonicalJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return string(raw)
	}
	sorted, err := json.Marshal(generic)
	if err != nil {
		return string(raw)
	}
	return string(sorted)
}
