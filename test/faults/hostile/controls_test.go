//go:build !windows

package hostile

import (
	"encoding/json"
	"strings"
	"testing"
)

// terminalBytes are what a hostile or careless server writes to stderr to
// take over a person's terminal: clear the screen, set the window title
// (OSC), ring the bell, a NUL, a carriage return that hides what came
// before it, and a C1 CSI (U+009B).
const terminalBytes = `printf 'before\033[2J\033]0;pwned\007\000\rhidden\302\233after\n' >&2`

// neutralised is how run-mcp shows those bytes on stderr.
const neutralised = `before\x1b[2J\x1b]0;pwned\x07\x00\x0dhidden\u009bafter`

// A server's stderr reaches a person's terminal (the failure diagnostics,
// --show-stderr) with its control bytes shown, never obeyed; --raw keeps it
// as data in JSON, where encoding/json escapes them.
func TestAServersControlBytesNeverReachTheTerminal(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	raw := func(text string) {
		t.Helper()
		for _, c := range []string{"\x1b", "\x07", "\x00", "\r", "\u009b"} {
			if strings.Contains(text, c) {
				t.Errorf("stderr holds the raw control %q:\n%q", c, text)
			}
		}
	}

	// A server that fails at start: the diagnostics carry its stderr.
	r := run(t, tmp, "list-tools", "--", "sh", "-c", terminalBytes+"; exit 1")
	r.want(t, 69, neutralised, "The server exited with code 1.")
	raw(r.stderr)

	// A server that works, with --show-stderr.
	r = run(t, tmp, "list-tools", "--show-stderr", "--", "sh", "-c", terminalBytes+"; exec "+bin+" demo-server")
	r.want(t, 0, "[server stderr] "+neutralised)
	raw(r.stderr)

	// --raw: the same line as data, its bytes intact.
	r = run(t, tmp, "list-tools", "--raw", "--", "sh", "-c", terminalBytes+"; exit 1")
	var env struct {
		Stderr []string `json:"stderr"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
		t.Fatalf("--raw printed no JSON envelope: %v\n%s", err, r)
	}
	want := "before\x1b[2J\x1b]0;pwned\x07\x00\rhidden\u009bafter"
	if len(env.Stderr) != 1 || !strings.HasSuffix(env.Stderr[0], want) {
		t.Errorf("--raw's stderr is %q, want the line as the server wrote it (%q)", env.Stderr, want)
	}
}
