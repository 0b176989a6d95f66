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

// CallLine writes the request of a simple sessioned call, and declines
// every other command line: a line it sends is a call made.
func TestCallLine(t *testing.T) {
	opts := `"options":{"media_threshold":0,"max_text":50000,"request_timeout_ms":30000}}` + "\n"
	cases := []struct {
		args []string
		want string // "" when declined
	}{
		{[]string{"call", "echo", "message=hi", "--session", "dev"},
			`{"op":"call","session":"dev","tool":"echo","args":{"message":"hi"},"shorthand":["message"],"cwd":"/w",` + opts},
		{[]string{"call", "--session=dev", "add", "b=2", "a=1"},
			`{"op":"call","session":"dev","tool":"add","args":{"a":"1","b":"2"},"shorthand":["a","b"],"cwd":"/w",` + opts},
		{[]string{"call", "bump_counter", "--session", "dev"},
			`{"op":"call","session":"dev","tool":"bump_counter","args":{},"cwd":"/w",` + opts},
		{[]string{"call", "echo", "message=<a&b>=c\u2028", "q=", "--session", "dev"},
			`{"op":"call","session":"dev","tool":"echo","args":{"message":"\u003ca\u0026b\u003e=c\u2028","q":""},"shorthand":["message","q"],"cwd":"/w",` + opts},
		{[]string{"call", "echo", "a:b=1", "--session", "dev"},
			`{"op":"call","session":"dev","tool":"echo","args":{"a:b":"1"},"shorthand":["a:b"],"cwd":"/w",` + opts},
		// Anything else the command reads for itself.
		{[]string{"call", "echo", "n:=5", "--session", "dev"}, ""},
		{[]string{"call", "echo", `{"message":"hi"}`, "--session", "dev"}, ""},
		{[]string{"call", "echo", "@args.json", "--session", "dev"}, ""},
		{[]string{"call", "echo", "-", "--session", "dev"}, ""},
		{[]string{"call", "echo", "message=hi", "--session", "dev", "--raw"}, ""},
		{[]string{"call", "echo", "message=hi", "--session", "dev", "--", "node", "srv.js"}, ""},
		{[]string{"call", "echo", "message=hi", "node", "--session", "dev"}, ""},
		{[]string{"call", "echo", "a=1", "a=2", "--session", "dev"}, ""},
		{[]string{"call", "echo", "my/key=1", "--session", "dev"}, ""},
		{[]string{"call", "echo", "message=hi", "--session", "dev", "--session", "other"}, ""},
		{[]string{"call", "echo", "message=hi", "--session", "../x"}, ""},
		{[]string{"call", "echo", "message=hi", "--session"}, ""},
		{[]string{"call", "echo", "message=hi"}, ""},
		{[]string{"call", "--session", "dev"}, ""},
		{[]string{"call", "", "--session", "dev"}, ""},
		{[]string{"list-tools", "--session", "dev"}, ""},
		{[]string{"call", "echo", "--help", "--session", "dev"}, ""},
	}
	for _, c := range cases {
		got, ok := CallLine(c.args, "/w", false)
		if ok != (c.want != "") || string(got) != c.want {
			t.Errorf("%q:\n got %v %s\nwant %s", c.args, ok, got, c.want)
		}
	}
	debug, _ := CallLine([]string{"call", "echo", "--session", "dev"}, "", true)
	if want := `{"op":"call","session":"dev","tool":"echo","args":{},"options":{"media_threshold":0,"max_text":50000,"request_timeout_ms":30000,"debug":true}}` + "\n"; string(debug) != want {
		t.Errorf("with RUN_MCP_DEBUG=1 and no working directory:\n got %s\nwant %s", debug, want)
	}
}
