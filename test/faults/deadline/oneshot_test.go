//go:build !windows

package deadline

import (
	"slices"
	"strings"
	"testing"
)

// A one-shot command against a server that never answers what it needs
// ends with exit 69 (3.0: a call that times out exits 69 one-shot) and a
// message naming the request, the budget and the flag to change it.
func TestOneShotCommandsEndWithTheUnansweredRequest(t *testing.T) {
	cases := []struct {
		name  string
		words []string
		never string
		modern,
		call bool // a call: the message keeps 3.0's "timed out" and names --timeout
	}{
		{name: "list-tools", words: []string{"list-tools"}, never: "tools/list"},
		{name: "list-tools modern", words: []string{"list-tools", "--protocol", "auto"}, never: "tools/list", modern: true},
		{name: "list-resources", words: []string{"list-resources"}, never: "resources/list"},
		{name: "list-prompts", words: []string{"list-prompts"}, never: "prompts/list"},
		{name: "describe", words: []string{"describe", "echo"}, never: "tools/list"},
		{name: "call needs the tool list", words: []string{"call", "echo"}, never: "tools/list"},
		{name: "call", words: []string{"call", "echo", "message=hi"}, never: "tools/call", call: true},
		{name: "call modern", words: []string{"call", "echo", "--protocol", "auto"}, never: "tools/call", modern: true, call: true},
		{name: "read", words: []string{"read", "stuck://note"}, never: "resources/read", call: true},
		{name: "get-prompt", words: []string{"get-prompt", "hello"}, never: "prompts/get", call: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			flags := []string{"--never", tc.never}
			if tc.modern {
				flags = append(flags, "--modern")
			}
			words := append(append([]string{}, tc.words...), "--request-timeout", budget)
			if slices.Contains([]string{"call", "read", "get-prompt"}, tc.words[0]) {
				words = append(words, "--timeout", budget) // the commands that call something have it
			}
			r := run(t, t.TempDir(), append(words, stuckServer(flags...)...)...)
			if r.code != 69 {
				t.Errorf("want exit 69 for a request the server never answered, got %d\n%s", r.code, r)
			}
			if tc.call {
				wantAll(t, tc.name, r.stderr, "timed out", tc.never+" got no answer within its 1500 ms budget", "--timeout")
			} else {
				wantAll(t, tc.name, r.stderr, tc.never+" got no answer within 1500 ms", "budget for housekeeping requests", "--request-timeout")
			}
			// The evidence comes with it: the server's own stderr says it got the request.
			wantAll(t, tc.name, r.stderr, "stuck: got "+tc.never)
			if strings.Contains(r.stderr, "request_timeout_ms") {
				t.Errorf("a shell user is told about flags, not the agent server's parameters:\n%s", r.stderr)
			}
		})
	}
}

// validate checks a server that connected but never lists its tools: the
// check fails with the reason, the report is printed, exit 1 (FAIL).
func TestValidateReportsTheUnansweredListing(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), append([]string{"validate", "--request-timeout", budget}, stuckServer("--never", "tools/list")...)...)
	if r.code != 1 {
		t.Errorf("want exit 1 (FAIL), got %d\n%s", r.code, r)
	}
	wantAll(t, "validate", r.stdout, "Validation Result: FAIL", "[FAIL] tools_capability", "tools/list got no answer within 1500 ms", "--request-timeout")
}

// The budget is a visible, checked option.
func TestRequestTimeoutIsAnOption(t *testing.T) {
	t.Parallel()
	r := run(t, t.TempDir(), "--help")
	wantAll(t, "--help", r.stdout, "--request-timeout", "housekeeping request")
	r = run(t, t.TempDir(), append([]string{"list-tools", "--request-timeout", "0"}, stuckServer()...)...)
	if r.code != 64 || !strings.Contains(r.stderr, "--request-timeout must be a positive number of milliseconds") {
		t.Errorf("--request-timeout 0 must be a usage error:\n%s", r)
	}
}
