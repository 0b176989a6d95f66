package prespawn

import "strings"

// oneShot are the subcommands that start a server for one command.
var oneShot = map[string]bool{
	"call": true, "list-tools": true, "list-resources": true, "list-prompts": true,
	"read": true, "get-prompt": true, "describe": true, "stderr": true, "validate": true,
}

// Wanted says whether args (os.Args[1:]) look like a one-shot command that
// will start a local server: one of oneShot, no --session (the session's
// daemon starts the server) and no help before "--", and a command after it
// that is not a URL (an HTTP target starts nothing).
func Wanted(args []string) bool {
	if len(args) < 3 || !oneShot[args[0]] {
		return false
	}
	for i, a := range args[1:] {
		switch {
		case a == "--":
			rest := args[i+2:]
			return len(rest) > 0 && rest[0] != "" && !strings.HasPrefix(rest[0], "http://") && !strings.HasPrefix(rest[0], "https://")
		case a == "--session" || strings.HasPrefix(a, "--session=") || a == "--help" || a == "-h":
			return false
		}
	}
	return false
}
