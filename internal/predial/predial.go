package predial

import "strings"

// sessioned are the subcommands that send their work to a session's daemon
// when given --session.
var sessioned = map[string]bool{
	"call": true, "list-tools": true, "list-resources": true, "list-prompts": true,
	"read": true, "get-prompt": true, "describe": true, "stderr": true, "validate": true,
}

// Session returns the session that args (os.Args[1:]) name with --session,
// when they look like a sessioned command: one of sessioned, and the flag
// before "--" (after it, the words are the server's). The name must be one
// a session can have (as cli/session.ValidName says), since it names a file
// in the session directory.
func Session(args []string) (string, bool) {
	if len(args) < 2 || !sessioned[args[0]] {
		return "", false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		var name string
		switch {
		case a == "--" || a == "--help" || a == "-h":
			return "", false
		case a == "--session" && i+1 < len(args):
			name = args[i+1]
		case strings.HasPrefix(a, "--session="):
			name = strings.TrimPrefix(a, "--session=")
		default:
			continue
		}
		return name, ValidName(name)
	}
	return "", false
}

// ValidName says whether name can name a session: it names files in the
// session directory, so it starts with a letter or digit and holds only
// those and '.', '_' and '-', up to 200 bytes. cli/session.ValidName is
// this.
func ValidName(name string) bool {
	if name == "" || len(name) > 200 || !alnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
