package predial

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSession(t *testing.T) {
	cases := []struct {
		line string
		want string // "" when no early dial
	}{
		{"call echo message=hi --session dev", "dev"},
		{"call echo --session=dev message=hi", "dev"},
		{"list-tools --raw --session my.srv_2-b", "my.srv_2-b"},
		{"list-tools --session dev -- ./server", "dev"},
		{"stderr 20 --session dev", "dev"},
		{"call echo -- ./server --session dev", ""}, // the server's words
		{"call echo --help --session dev", ""},
		{"call echo --session", ""},
		{"call echo --session ../../elsewhere", ""}, // never a path out of the session directory
		{"call echo --session=.hidden", ""},
		{"call echo --session=", ""},
		{"call echo --session " + strings.Repeat("a", 201), ""},
		{"sessions --session dev", ""},
		{"close-session dev", ""},
		{"session-daemon --session dev", ""},
		{"--session dev call echo", ""},
		{"", ""},
	}
	for _, c := range cases {
		name, ok := Session(strings.Fields(c.line))
		if ok != (c.want != "") || name != c.want && ok {
			t.Errorf("%q: got %q, %v; want %q", c.line, name, ok, c.want)
		}
	}
}
