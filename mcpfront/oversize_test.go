package mcpfront

import (
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
