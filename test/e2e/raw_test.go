package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// rawFailure is the --raw error envelope.
type rawFailure struct {
	Error    string          `json:"error"`
	Code     json.RawMessage `json:"code"`
	ExitCode int             `json:"exit_code"`
	Exit     *string         `json:"exit"`
	Stderr   []string        `json:"stderr"`
}

// wantRawFailure checks what `--raw 2>&1 | jq` relies on: the command
// failed with code, stdout is one JSON envelope saying so, and stderr holds
// nothing at all (no status line, no message).
func (r result) wantRawFailure(t *testing.T, code int) rawFailure {
	t.Helper()
	r.wantCode(t, code)
	if r.stderr != "" {
		t.Errorf("a --raw failure must print nothing on stderr\n%s", r)
	}
	var env rawFailure
	r.json(t, &env)
	if env.ExitCode != code || env.Error == "" || env.Stderr == nil {
		t.Errorf("envelope %+v, want exit_code %d and the message\n%s", env, code, r)
	}
	return env
}

// A --raw failure is its envelope on stdout and nothing on stderr, however
// far the command got: a refused command line, a server that never
// started, a tool the server does not have, a request the server refused.
func TestRawFailureIsOnlyItsEnvelope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // the code, as JSON
	}{
		{"unknown flag", args([]string{"call", "echo", "--raw", "--bogus"}, demo()), 64, `"USAGE"`},
		{"bare word", []string{"call", "args", "hello", "--raw", "--session", "X"}, 65, `"INVALID_ARGUMENTS"`},
		{"command not found", []string{"list-tools", "--raw", "--", "run-mcp-no-such-server-xyz"}, 66, `"COMMAND_NOT_FOUND"`},
		{"crash at start", args([]string{"list-tools", "--raw"}, demo("--crash-at-start", "no database")), 69, `"CONNECT_FAILED"`},
		{"unknown tool", args([]string{"call", "nope", "--raw"}, demo()), 64, `"UNKNOWN_TOOL"`},
		{"stderr of a crash", args([]string{"stderr", "--raw"}, demo("--crash-at-start", "no database")), 69, `"CONNECT_FAILED"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := run(t, tc.args...).wantRawFailure(t, tc.code)
			if string(env.Code) != tc.want {
				t.Errorf("code %s, want %s", env.Code, tc.want)
			}
		})
	}
}

// A JSON-RPC error the server answered with keeps its code in the
// envelope, as the number the server sent.
func TestRawKeepsTheServersErrorCode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code string
	}{
		{args([]string{"get-prompt", "nope", "--raw"}, demo()), "-32602"},
		{[]string{"call", "ok", "--raw", "--", badServer}, "-32601"},
	} {
		env := run(t, tc.args...).wantRawFailure(t, 1)
		if string(env.Code) != tc.code {
			t.Errorf("%s: code %s, want the server's %s\n%+v", tc.args[0], env.Code, tc.code, env)
		}
		if !strings.Contains(env.Error, "the server answered with error "+tc.code) {
			t.Errorf("error %q does not say what the server answered", env.Error)
		}
	}
}

// A --raw success still says on stderr what a one-shot command says
// (Connecting, Connected, a warning about stdout noise).
func TestRawSuccessKeepsItsStatusLines(t *testing.T) {
	t.Parallel()
	r := run(t, args([]string{"call", "noise", "--raw"}, demo())...)
	r.wantCode(t, 0)
	r.wantStderr(t, "Connecting to ", "Connected to ", "Warning: The server wrote 1 non-JSON line(s) to stdout")
	var env struct {
		Noise []string `json:"stdout_noise"`
	}
	r.json(t, &env)
	if len(env.Noise) != 1 || env.Noise[0] != "this line is not JSON-RPC" {
		t.Errorf("stdout_noise = %q, want the line as a string, as 3.0 printed it\n%s", env.Noise, r)
	}
}
