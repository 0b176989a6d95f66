package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPrintJSONOfRawTextIsTheEncoders: the one-pass path for text that is
// JSON already writes what json.Encoder (indented, no HTML escaping) wrote.
func TestPrintJSONOfRawTextIsTheEncoders(t *testing.T) {
	raws := []string{
		`{"a":1}`, " {\n \"a\" : [ 1 , 2 ] ,\t\"b\":{}}\r\n ", `"<tag> & \u2028 ` + "\u2028 é" + `"`, `[]`, `{}`, `null`, `1e5`,
		`{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`,
	}
	var cases []any
	for _, r := range raws {
		cases = append(cases, json.RawMessage(r))
	}
	var list []json.RawMessage
	for _, r := range raws {
		list = append(list, json.RawMessage(r))
	}
	cases = append(cases, list, []json.RawMessage{}, []json.RawMessage(nil), json.RawMessage(nil),
		json.RawMessage(`{"broken"`), []json.RawMessage{json.RawMessage(`1`), nil}, []json.RawMessage{json.RawMessage(``)})
	for _, v := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		wantErr := enc.Encode(v)
		var got bytes.Buffer
		gotErr := streams{out: &got}.printJSON(v)
		if (wantErr != nil) != (gotErr != nil) || got.String() != want.String() {
			t.Errorf("printJSON(%q) = %q, %v; the encoder wrote %q, %v", v, got.String(), gotErr, want.String(), wantErr)
		}
	}
}
