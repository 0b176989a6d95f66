package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// JSON mistakes are said in JSON's words, never in Go's.
func TestJSONWords(t *testing.T) {
	var obj map[string]any
	var res struct {
		Content []json.RawMessage `json:"content"`
		Error   *struct {
			Code int `json:"code"`
		} `json:"error"`
		Ratio float64 `json:"ratio"`
	}
	for _, tc := range []struct {
		text string
		into any
		want string
	}{
		{`[1, 2]`, &obj, "it is an array, not an object"},
		{`{"content": "text"}`, &res, "content is a string where an array goes"},
		{`{"error": {"code": "x"}}`, &res, "error.code is a string where a whole number goes"},
		{`{"error": {"code": 1.5}}`, &res, "error.code is a number where a whole number goes"},
		{`{"ratio": true}`, &res, "ratio is true or false where a number goes"},
		{`{"a": }`, &obj, "invalid character '}' looking for beginning of value (at byte 7)"},
		{`{"a": 1`, &obj, "the JSON ends before it is complete"},
	} {
		err := json.Unmarshal([]byte(tc.text), tc.into)
		got := JSONWords(err)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.text, got, tc.want)
		}
		if goWords.MatchString(got) || strings.Contains(got, "json:") {
			t.Errorf("%s: Go's words: %q", tc.text, got)
		}
	}
	// A library's own error that names its types is not passed on.
	if got := JSONWords(errors.New("json: cannot unmarshal object into Go value of type mcp.TextContent")); goWords.MatchString(got) {
		t.Errorf("a library's error is passed on with its Go types: %q", got)
	}
}
