//go:build unix

package cli

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/predial"
	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// fakeDaemon listens on a session's socket in the private directory under
// TMPDIR and answers every request with a fixed reply; lines has each
// request line it read.
func fakeDaemon(t *testing.T, name string) (lines <-chan string) {
	t.Helper()
	dir, err := safesocket.Dir()
	if err != nil {
		t.Fatal(err)
	}
	l, err := safesocket.Listen(safesocket.Path(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil {
				got <- line
				_, _ = c.Write([]byte(`{"code":0,"stdout":"[]\n"}` + "\n"))
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return got
}

// Every command line predial sends early is the request the command line
// makes, byte for byte: the cli takes the early answer only when they are
// equal, and otherwise refuses, since the call was made. Each line is run
// through the real command against a fake daemon, and what it sends is
// compared with predial.CallLine.
func TestEarlyCallLineIsTheCommandsRequest(t *testing.T) {
	t.Setenv("TMPDIR", shortTemp(t))
	lines := fakeDaemon(t, "dev")
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"call", "echo", "message=hi", "--session", "dev"},
		{"call", "--session", "dev", "echo", "message=hi"},
		{"call", "echo", "--session=dev", "b=2", "a=1", "c=a=b"},
		{"call", "bump_counter", "--session", "dev"},
		{"call", "echo", "message=<a&b> \u2028 \u00e9 \xff", "empty=", "--session", "dev"},
		{"call", "echo", "a:b=1", "k.x-y_z=v", "--session", "dev"},
		{"call", "my.tool/with:odd=name", "x=1", "--session", "dev"},
		{"call", "echo", "message=line\nbreak\ttab\"quote\\", "--session", "dev"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		cases = append(cases, randomCall(r))
	}
	for _, debug := range []bool{false, true} {
		t.Setenv("RUN_MCP_DEBUG", map[bool]string{false: "", true: "1"}[debug])
		for _, args := range cases {
			early, ok := predial.CallLine(args, cwd, debug)
			if !ok {
				t.Errorf("%q: CallLine declines a simple call", args)
				continue
			}
			got := runRoot(t, NewRootFor("0", nil, args), args)
			if !strings.HasPrefix(got, "exit 0\n") {
				t.Errorf("%q against the fake daemon:\n%s", args, got)
				continue
			}
			if sent := <-lines; sent != string(early) {
				t.Errorf("%q:\nthe command sends %s\n predial sends %s", args, sent, early)
			}
		}
	}
}

// randomCall is a simple call with random keys and values: any byte in a
// value, keys of the characters a key may hold, the flag anywhere.
func randomCall(r *rand.Rand) []string {
	const keyChars = "abcXYZ019_.-:éß<&"
	word := func(chars string, n int) string {
		var b strings.Builder
		rs := []rune(chars)
		for range n {
			b.WriteRune(rs[r.IntN(len(rs))])
		}
		return b.String()
	}
	args := []string{"call", word("abcdefgh", 1) + word("abcdefgh_-.", r.IntN(8))}
	seen := map[string]bool{}
	for range r.IntN(5) {
		k := word(keyChars, 1+r.IntN(6))
		if seen[k] || strings.HasSuffix(k, ":") || strings.HasPrefix(k, "-") {
			continue
		}
		seen[k] = true
		v := make([]byte, r.IntN(12))
		for i := range v {
			v[i] = byte(r.IntN(256))
		}
		args = append(args, k+"="+string(v))
	}
	flag := []string{"--session", "dev"}
	if r.IntN(2) == 0 {
		flag = []string{"--session=dev"}
	}
	at := 2 + r.IntN(len(args)-1)
	if r.IntN(4) == 0 {
		at = 1 // before the tool
	}
	return append(args[:at:at], append(flag, args[at:]...)...)
}

// shortTemp is a temp dir short enough for a Unix socket path inside it.
func shortTemp(t *testing.T) string {
	dir, err := os.MkdirTemp("/tmp", "rmc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// A call sent while run-mcp starts waits for its answer as long as the
// command does with its defaults, from when it was sent.
func TestEarlyCallWaitsAsTheCommandDoes(t *testing.T) {
	g := &globals{requestMS: int(actors.DefaultRequestTimeout.Milliseconds())}
	want := g.callTimeout(headlessTimeout) + max(g.requestTimeout(), connectTimeoutOf(g)) + answerMargin
	if predial.AnswerWait != want {
		t.Errorf("predial waits %v for an early call's answer; the command waits %v", predial.AnswerWait, want)
	}
}
