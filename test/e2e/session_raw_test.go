//go:build !windows

package e2e

import "testing"

// On a session, a --raw failure is one envelope on stdout too, whether the
// daemon ran the command (an unknown tool, the server's JSON-RPC error) or
// refused it first (another server under the same name, a session that is
// not running).
func TestSessionRawFailureIsOnlyItsEnvelope(t *testing.T) {
	t.Parallel()
	s := newSession(t, "rawfail")
	s.run(args([]string{"list-tools", "--session", "rawfail"}, demo())...).wantCode(t, 0)

	env := s.run("call", "nope", "--raw", "--session", "rawfail").wantRawFailure(t, 64)
	if string(env.Code) != `"UNKNOWN_TOOL"` {
		t.Errorf("code %s, want UNKNOWN_TOOL", env.Code)
	}
	env = s.run("get-prompt", "nope", "--raw", "--session", "rawfail").wantRawFailure(t, 1)
	if string(env.Code) != "-32602" {
		t.Errorf("code %s, want the server's -32602", env.Code)
	}
	env = s.run(args([]string{"list-tools", "--raw", "--session", "rawfail"}, demo("--stderr-flood", "1"))...).wantRawFailure(t, 64)
	if string(env.Code) != `"USAGE"` {
		t.Errorf("code %s, want USAGE for another server under the name", env.Code)
	}
	s.run("list-tools", "--raw", "--session", "nosuch").wantRawFailure(t, 64)
	s.run(args([]string{"call", "echo", "--raw", "--session", "rawstart"}, demo("--crash-at-start", "boom"))...).wantRawFailure(t, 69)
}
