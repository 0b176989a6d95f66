package prespawn

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWanted(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{"list-tools -- node server.js", true},
		{"call echo message=hi -- ./server", true},
		{"call echo --raw -e K=V -- ./server --flag", true},
		{"validate -- python -m srv", true},
		{"call echo message=hi --session s -- ./server", false},
		{"call echo --session=s -- ./server", false},
		{"list-tools --help -- ./server", false},
		{"list-tools -- http://localhost:3000/mcp", false},
		{"list-tools -- https://example.com/mcp", false},
		{"list-tools --server name", false},
		{"list-tools --", false},
		{"servers -- ./server", false},
		{"--version", false},
		{"", false},
		{"call echo -- --session", true}, // after "--" the words are the server's
	}
	for _, c := range cases {
		if got := Wanted(strings.Fields(c.line)); got != c.want {
			t.Errorf("Wanted(%q) = %v, want %v", c.line, got, c.want)
		}
	}
}
