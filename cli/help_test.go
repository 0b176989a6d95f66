package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagNames are the flags a command offers, --help aside.
func flagNames(c *cobra.Command) []string {
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	return names
}

// Each command offers the flags it uses and no others: its --help is a
// true list, and a flag it would ignore is refused.
func TestEachCommandHasOnlyItsFlags(t *testing.T) {
	target := []string{"bearer-env", "client-id", "client-metadata-url", "client-secret", "connect-timeout", "env", "file", "header",
		"idle-timeout", "protocol", "raw", "request-timeout", "scan", "server", "session"}
	with := func(extra ...string) []string {
		out := append(slices.Clone(target), extra...)
		slices.Sort(out)
		return out
	}
	want := map[string][]string{
		"call":           with("max-text", "media-threshold", "out-dir", "show-stderr", "task", "timeout"),
		"read":           with("max-text", "media-threshold", "out-dir", "show-stderr", "timeout"),
		"get-prompt":     with("show-stderr", "timeout"),
		"describe":       with("show-stderr"),
		"list-tools":     with("show-stderr"),
		"list-resources": with("show-stderr"),
		"list-prompts":   with("show-stderr"),
		"stderr":         with(),
		"validate":       with("deep", "json"),
		"reconnect":      with(),
		"sessions":       nil,
		"close-session":  nil,
		"servers":        {"file", "filter", "scan"},
		"login":          {"client-id", "client-metadata-url", "client-secret", "connect-timeout", "protocol"},
		"logout":         nil,
		"demo-server":    nil,
		"session-daemon": nil,
	}
	root := newRoot("0", nil, "")
	for _, c := range root.Commands() {
		w, ok := want[c.Name()]
		if !ok {
			t.Errorf("%s: no expected flags in this test; add them", c.Name())
			continue
		}
		if got := flagNames(c); !slices.Equal(got, w) {
			t.Errorf("%s offers %v, want %v", c.Name(), got, w)
		}
	}
	for _, agentOnly := range []string{"max-connections"} {
		if root.Flags().Lookup(agentOnly) == nil || root.PersistentFlags().Lookup(agentOnly) != nil {
			t.Errorf("--%s must be the agent server's alone, not inherited", agentOnly)
		}
	}
}

// Each command's --raw says in one sentence what it prints for that
// command, and every one says what a failure prints.
func TestRawHelpSaysWhatEachCommandPrints(t *testing.T) {
	seen := map[string]string{}
	for _, c := range newRoot("0", nil, "").Commands() {
		f := c.Flags().Lookup("raw")
		if f == nil {
			continue
		}
		first, rest, _ := strings.Cut(f.Usage, ". ")
		if strings.Contains(first, ". ") || !strings.HasPrefix(first, "Print") && !strings.HasPrefix(first, "Add") {
			t.Errorf("%s: --raw %q is not one sentence of what it prints", c.Name(), first)
		}
		if !strings.Contains(rest, "A failure prints {error, code, exit_code, exit, stderr} on stdout and nothing on stderr") {
			t.Errorf("%s: --raw does not say what a failure prints: %q", c.Name(), f.Usage)
		}
		if other, dup := seen[first]; dup && !strings.HasPrefix(c.Name(), "list-") {
			t.Errorf("%s and %s say the same of --raw: %q", c.Name(), other, first)
		}
		seen[first] = c.Name()
	}
	if len(seen) < 9 {
		t.Errorf("only %d distinct --raw sentences", len(seen))
	}
}

// The commands that take arguments document "-" (stdin) and @path.
func TestArgumentFormsAreDocumented(t *testing.T) {
	root := newRoot("0", nil, "")
	for _, name := range []string{"call", "get-prompt"} {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		help := c.Long + c.Use + c.Example
		for _, want := range []string{"read from stdin", "@path", "key:=json", "| - | @file"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q", name, want)
			}
		}
	}
}

// Flags given where they do not belong, values of the wrong kind and a
// missing session name are refused in words.
func TestUsageErrorsInWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"sessions", "--max-connections", "3"}, "--max-connections belongs to run-mcp (the agent server), not to run-mcp sessions"},
		{[]string{"list-tools", "--deep", "--", "x"}, "--deep belongs to run-mcp validate, not to run-mcp list-tools"},
		{[]string{"call", "echo", "--timeout", "5s", "--", "x"}, "--timeout takes whole milliseconds, not a duration: for 5s write --timeout 5000"},
		{[]string{"--timeout", "soon"}, `--timeout takes whole milliseconds (e.g. --timeout 5000 for five seconds), got "soon"`},
		{[]string{"--max-connections", "many"}, `--max-connections takes a whole number, got "many"`},
		{[]string{"close-session"}, "close-session needs the name of the session to close: run-mcp close-session NAME"},
		{[]string{"sessions", "extra"}, `run-mcp sessions takes no arguments, got "extra"`},
		{[]string{"--deep", "validate"}, "--deep belongs to run-mcp validate, so it goes after the subcommand"},
	} {
		for _, root := range []*cobra.Command{NewRoot("0", nil), NewRootFor("0", nil, tc.args)} {
			out := runRoot(t, root, tc.args)
			if !strings.HasPrefix(out, "exit 64\n") || !strings.Contains(out, tc.say) {
				t.Errorf("%q: want exit 64 saying %q, got\n%s", tc.args, tc.say, out)
			}
			for _, jargon := range []string{"strconv", "accepts 1 arg", "invalid syntax", "unknown flag: --"} {
				if strings.Contains(out, jargon) {
					t.Errorf("%q: the message says %q\n%s", tc.args, jargon, out)
				}
			}
		}
	}
}
