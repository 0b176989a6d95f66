package prespawn

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

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

// listings are the subcommands whose target is certain when nothing but
// "--" and the target follows them: they take no words of their own (no
// tool name, no arguments), and with no option there is nothing to check
// before the spawn. (describe is not one: it needs a tool name.)
var listings = map[string]bool{"list-tools": true, "list-resources": true, "list-prompts": true}

// EarlyListings names the subcommands EarlyTarget starts early, for the
// command tree's test that each takes nothing but its target.
func EarlyListings() []string {
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// EarlyTarget is the target of a listing with nothing but its target after
// the subcommand, resolved as the spawn resolves it, and false for any
// other command line, or a command that does not resolve (the spawn then
// reports it as usual).
func EarlyTarget(args []string) (supervise.Target, bool) {
	if len(args) < 3 || !listings[args[0]] || args[1] != "--" || !Wanted(args) {
		return supervise.Target{}, false
	}
	dir, err := os.Getwd()
	if err != nil {
		return supervise.Target{}, false
	}
	path, ok := resolve(args[2], dir)
	if !ok {
		return supervise.Target{}, false
	}
	return supervise.Target{Path: path, Argv: append([]string{path}, args[3:]...), Env: supervise.TargetEnv(nil), Dir: dir}, true
}

// resolve finds the command as the spawn does (wire's resolve): on PATH
// when it has no separator, else relative to dir; false when the spawn
// would refuse it.
func resolve(command, dir string) (string, bool) {
	if !strings.ContainsRune(command, filepath.Separator) {
		path, err := exec.LookPath(command)
		return path, err == nil
	}
	path := command
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return path, true
}
