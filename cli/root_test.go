package cli

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Each entry of the subcommand table builds exactly the commands it names,
// and together they are the whole tree: a name missing from the table would
// only cost the fast path, a wrong one would build the wrong command.
func TestSubcommandTableNamesWhatItBuilds(t *testing.T) {
	var all []string
	for _, sc := range subcommands(&globals{}, "0") {
		var built []string
		for _, c := range sc.build() {
			built = append(built, c.Name())
			if len(c.Aliases) > 0 {
				t.Errorf("%s has aliases %v, which the table does not list", c.Name(), c.Aliases)
			}
		}
		if !slices.Equal(built, sc.names) {
			t.Errorf("entry %v builds %v", sc.names, built)
		}
		all = append(all, built...)
	}
	var tree []string
	for _, c := range newRoot("0", nil, "").Commands() {
		tree = append(tree, c.Name())
	}
	slices.Sort(all)
	slices.Sort(tree)
	if !slices.Equal(all, tree) {
		t.Errorf("the table builds %v, the whole tree has %v", all, tree)
	}
}

// A root built for one subcommand answers that subcommand's help and its
// usage errors word for word as the whole tree does.
func TestRootForOneSubcommandAnswersAsTheWholeTree(t *testing.T) {
	for _, sc := range subcommands(&globals{}, "0") {
		for _, name := range sc.names {
			for _, args := range [][]string{{name, "--help"}, {name, "--no-such-option"}} {
				whole := runRoot(t, NewRoot("0", nil), args)
				alone := runRoot(t, NewRootFor("0", nil, args), args)
				if whole != alone {
					t.Errorf("%q:\nthe whole tree:\n%s\nbuilt for it:\n%s", args, whole, alone)
				}
				if args[1] == "--help" && !strings.Contains(whole, name) {
					t.Errorf("%q printed no help naming it:\n%s", args, whole)
				}
			}
		}
	}
	// Words that are not a subcommand get the whole tree.
	for _, args := range [][]string{{"lst-tools"}, {"--help"}, {"help", "call"}, {"--timeout", "5", "call", "--help"}} {
		if whole, lazy := runRoot(t, NewRoot("0", nil), args), runRoot(t, NewRootFor("0", nil, args), args); whole != lazy {
			t.Errorf("%q:\nthe whole tree:\n%s\nbuilt for it:\n%s", args, whole, lazy)
		}
	}
}

// runRoot runs root on args and returns its exit code and what it printed.
func runRoot(t *testing.T, root *cobra.Command, args []string) string {
	t.Helper()
	var out, errw bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errw)
	code := execute(context.Background(), root, &errw)
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errw.String())
}
