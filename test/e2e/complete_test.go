//go:build !windows

package e2e

import (
	"strings"
	"testing"
)

// Shell completion offers the names of the sessions for --session and
// close-session (cobra's __complete, what every generated script calls).
func TestCompletionOffersSessionNames(t *testing.T) {
	t.Parallel()
	s := newSession(t, "comp-one")
	s.run(args([]string{"list-tools", "--session", "comp-one"}, demo())...).wantCode(t, 0)
	for _, words := range [][]string{
		{"__complete", "close-session", ""},
		{"__complete", "call", "echo", "--session", "comp"},
		{"__complete", "list-tools", "--session=c"},
	} {
		r := s.run(words...)
		r.wantCode(t, 0)
		if !strings.Contains(r.stdout, "comp-one") {
			t.Errorf("%q does not offer the session:\n%s", words, r)
		}
	}
	// After --, the words are the target's: nothing of ours is offered.
	r := s.run("__complete", "call", "echo", "--", "node", "--session", "")
	if strings.Contains(r.stdout, "comp-one") {
		t.Errorf("a session offered for the target's own --session:\n%s", r)
	}
}
