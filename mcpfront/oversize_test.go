package mcpfront

import (
	"encoding/json"
	"strings"
	"testing"
)

func scanAll(parts ...string) *idScan {
	var s idScan
	for _, p := range parts {
		s.feed([]byte(p))
	}
	s.end()
	return &s
}

func TestIDScanFindsTheTopLevelID(t *testing.T) {
	big := strings.Repeat("x", 200_000)
	for name, c := range map[string]struct {
		msg        string
		id         string
		hasMethod  bool
		notObjecct bool
	}{
		"number first":         {`{"id":7,"method":"tools/call","params":{"a":"` + big + `"}}`, `7`, true, false},
		"string first":         {`{"jsonrpc":"2.0", "id" : "req-\"9\"", "method":"x"}`, `"req-\"9\""`, true, false},
		"after huge params":    {`{"method":"tools/call","params":{"id":1,"a":"` + big + `","b":[{"id":2}]},"id":-3.5e2}`, `-3.5e2`, true, false},
		"number at end":        {`{"method":"m","id":42`, `42`, true, false},
		"nested only":          {`{"method":"m","params":{"id":5}}`, ``, true, false},
		"id in a string value": {`{"method":"say \"id\":5","x":"\"id\": 6"}`, ``, true, false},
		"object id":            {`{"id":{"a":1},"method":"m"}`, ``, true, false},
		"null id":              {`{"id":null,"method":"m"}`, ``, true, false},
		"response":             {`{"jsonrpc":"2.0","id":"run-mcp-host-1","result":{"content":"` + big + `"}}`, `"run-mcp-host-1"`, false, false},
		"array":                {`[{"id":1,"method":"m"}]`, ``, false, true},
		"escaped key":          {`{"i\u0064":3,"method":"m"}`, ``, true, false},
		"long id":              {`{"id":"` + strings.Repeat("9", 5000) + `","method":"m"}`, ``, true, false},
		"first id wins":        {`{"id":1,"id":2,"method":"m"}`, `1`, true, false},
	} {
		s := scanAll(c.msg)
		if string(s.id) != c.id || s.hasMethod != c.hasMethod || s.notObject != c.notObjecct {
			t.Errorf("%s: id %q method %v notObject %v; want %q %v %v", name, s.id, s.hasMethod, s.notObject, c.id, c.hasMethod, c.notObjecct)
		}
	}
	// Split anywhere, the answer is the same.
	msg := `{"params":{"id":1},"id":"abc","method":"m"}`
	for i := range len(msg) {
		if s := scanAll(msg[:i], msg[i:]); string(s.id) != `"abc"` || !s.hasMethod {
			t.Errorf("split at %d: id %q method %v", i, s.id, s.hasMethod)
		}
	}
}

// FuzzIDScanAgreesWithEncodingJSON holds the scanner to encoding/json on
// every message that encoding/json can read whole: the same top-level id
// (a string or a number of at most maxIDBytes, as written) and the same
// answer to whether there is a top-level "method". Keys are compared as
// written, so a message whose keys use escapes, or that repeats "id", is
// left out (the scanner keeps the first id; encoding/json the last).
func FuzzIDScanAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"id":7,"method":"tools/call","params":{"a":"b"}}`,
		`{"method":"m","params":{"id":1,"x":[{"id":2}]},"id":-3.5e2}`,
		`{"jsonrpc":"2.0","id":"r-\"1\"","result":{}}`,
		`{"id":null,"method":"m"}`, `{"id":{"a":1}}`, `{"id":true}`, ` { "id" : 1 } `,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		var top map[string]json.RawMessage
		if json.Unmarshal([]byte(msg), &top) != nil || strings.Contains(msg, `\`) || strings.Count(msg, `"id"`) > 1 {
			return
		}
		var want json.RawMessage
		if v, ok := top["id"]; ok && len(v) <= maxIDBytes {
			var x any
			_ = json.Unmarshal(v, &x)
			switch x.(type) {
			case string, float64:
				want = v
			}
		}
		_, method := top["method"]
		s := scanAll(msg)
		if string(s.id) != string(want) || s.hasMethod != method || s.notObject {
			t.Errorf("%q: scanner id %q method %v notObject %v; encoding/json id %q method %v", msg, s.id, s.hasMethod, s.notObject, want, method)
		}
	})
}
