package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// sessionNames are the names of the sessions that have a record, for shell
// completion: reading the records is all it costs, nothing is started.
func sessionNames(prefix string) []string {
	dir, err := safesocket.Dir()
	if err != nil {
		return nil
	}
	var names []string
	for _, rec := range session.Records(dir) {
		if strings.HasPrefix(rec.Name, prefix) {
			names = append(names, rec.Name)
		}
	}
	return names
}

// completeSessionFlag completes the value of --session on the headless
// commands. They parse their own flags (run-mcp's words and the target's
// share the line), so cobra hands every word here rather than complete
// flag values itself; anything else is left to the shell (files).
func completeSessionFlag(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if v, ok := strings.CutPrefix(toComplete, "--session="); ok {
		var out []string
		for _, n := range sessionNames(v) {
			out = append(out, "--session="+n)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	if n := len(args); n > 0 && args[n-1] == "--session" && !after("--", args) {
		return sessionNames(toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// after says whether word occurs in args (so what follows it is the
// target's).
func after(word string, args []string) bool {
	for _, a := range args {
		if a == word {
			return true
		}
	}
	return false
}

// completeSessionName completes close-session's one argument.
func completeSessionName(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return sessionNames(toComplete), cobra.ShellCompDirectiveNoFileComp
}
