package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/run-mcp/run-mcp/internal/didyoumean"
)

// layout says what a subcommand takes before its target command.
type layout struct {
	positionals int  // required words first (tool name, URI, …)
	optional    int  // optional words after them that are not arg words (stderr's count)
	argWords    bool // then key=value / key:=json / {json} words
}

// split is a command line divided into run-mcp's words and the target's.
type split struct {
	positionals []string
	argWords    []string
	target      []string
	dashed      bool // the target came after --
}

// splitArgs parses run-mcp's own flags and words out of raw and returns the
// rest as the target command. With --, everything after it is the target and
// a misspelled flag before it is an error. Without --, the first word that is
// not ours starts the target, and flags after it belong to the target: after
// no argument words or after a JSON-object argument (as in 3.0: call echo
// '{"message":"hi"}' node srv.js); after key=value words a bare word is exit
// 65 and nothing is spawned.
func splitArgs(cmd *cobra.Command, raw []string, l layout) (split, error) {
	fs := cmd.Flags()
	fs.AddFlagSet(cmd.InheritedFlags())
	var sp split
	var ours []string
	sawObject := false // a JSON-object argument: a bare word after it starts the target
	for i := 0; i < len(raw); i++ {
		tok := raw[i]
		switch {
		case tok == "--":
			sp.target, sp.dashed = raw[i+1:], true
			if err := dashedTarget(cmd, sp.target, l); err != nil {
				return sp, err
			}
			return sp, finishFlags(cmd, ours, sp)
		case strings.HasPrefix(tok, "-") && len(tok) > 1 && !isNumber(tok):
			flag, err := lookupFlag(cmd, fs, tok)
			if err != nil {
				return sp, err
			}
			ours = append(ours, tok)
			if flag.NoOptDefVal == "" && !strings.Contains(tok, "=") && !attachedShort(tok) {
				if i+1 >= len(raw) {
					return sp, exitf(ExitUsage, "flag %s needs a value after it (e.g. %s VALUE); see run-mcp %s --help", tok, tok, cmd.Name())
				}
				i++
				ours = append(ours, raw[i])
			}
		case len(sp.positionals) < l.positionals:
			sp.positionals = append(sp.positionals, tok)
		case len(sp.positionals) < l.positionals+l.optional && isNumber(tok):
			sp.positionals = append(sp.positionals, tok)
		case l.argWords && isArgWord(tok):
			sp.argWords = append(sp.argWords, tok)
			sawObject = sawObject || isObjectWord(tok)
		case l.argWords && hasDashLater(raw[i:]):
			// A bare word before --: not an argument and not the target.
			_, _, err := parseWord(tok, false)
			return sp, err
		case l.argWords && len(sp.argWords) > 0 && !sawObject:
			// After key=value words a bare word is a mistyped argument far
			// more often than a server: spawning it would run whatever it
			// names, and take the flags after it (--session) as its own.
			return sp, exitf(ExitDataErr, "%q is not an argument: write key=value for a string or key:=json for anything else (a bare word is never dropped silently). "+
				"If it starts the target command, put -- before it: run-mcp %s … -- %s", tok, cmd.Name(), tok)
		default:
			if own := ownFlagAfter(fs, raw[i+1:]); own != "" {
				return sp, swallowed(cmd, tok, own, l)
			}
			sp.target = raw[i:]
			return sp, finishFlags(cmd, ours, sp)
		}
	}
	return sp, finishFlags(cmd, ours, sp)
}

// ownFlagAfter is the first of run-mcp's own long flags (--session,
// --raw=true) among rest, before any "--"; "" when there is none. Without
// "--", the words after the first bare word are the target's, so a flag of
// ours among them would silently go to the server (which then fails, or
// worse, runs) while run-mcp runs without it. Shorthands are left to the
// target: -e, -m and -t are its own far more often (node -e, python -m).
func ownFlagAfter(fs *pflag.FlagSet, rest []string) string {
	for _, t := range rest {
		if t == "--" {
			return ""
		}
		if !strings.HasPrefix(t, "--") || len(t) == 2 {
			continue
		}
		name, _, _ := strings.Cut(t[2:], "=")
		if fs.Lookup(name) != nil {
			return "--" + name
		}
	}
	return ""
}

// swallowed refuses a bare word that would start the target and take one of
// run-mcp's own flags with it: for a command that takes argument words it
// is a malformed argument (65, as any bare word among them), otherwise a
// usage error (64). Both say how to mean either reading.
func swallowed(cmd *cobra.Command, word, flag string, l layout) error {
	if l.argWords {
		return exitf(ExitDataErr, "%q is not an argument: write key=value for a string or key:=json for anything else (a bare word is never dropped silently). "+
			"If it starts the target command, put -- before it: run-mcp %s … %s … -- %s (without --, the target would take %s as its own flag)",
			word, cmd.Name(), flag, word, flag)
	}
	return exitf(ExitUsage, "%q would start the target command, and the target would take %s, a flag of run-mcp's, as its own. "+
		"Put -- before the target command to keep %s run-mcp's: run-mcp %s … %s … -- %s …",
		word, flag, flag, cmd.Name(), flag, word)
}

// dashedTarget refuses a target after "--" that starts with "-": no
// server's command does, so it is one of run-mcp's words put after the
// separator (stderr -- -5), or a target's option missing its command.
func dashedTarget(cmd *cobra.Command, target []string, l layout) error {
	if len(target) == 0 || !strings.HasPrefix(target[0], "-") {
		return nil
	}
	first := target[0]
	if l.optional > 0 && isNumber(first) {
		return exitf(ExitUsage, "%q after -- would be the target command, and a command cannot start with '-'. A count goes before --, and is a positive number of lines: run-mcp %s 20 … -- <your server command>",
			first, cmd.Name())
	}
	return exitf(ExitUsage, "the target command after -- starts with %q, and a command cannot start with '-': the first word after -- is the server to run (node, python, ./server, a URL). "+
		"If %s is run-mcp's, put it before --; if it is the server's, put the server's command before it", first, first)
}

func hasDashLater(rest []string) bool {
	for _, t := range rest {
		if t == "--" {
			return true
		}
	}
	return false
}

func attachedShort(tok string) bool {
	return !strings.HasPrefix(tok, "--") && len(tok) > 2
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if (r < '0' || r > '9') && !(i == 0 && r == '-' && len(s) > 1) {
			return false
		}
	}
	return true
}

func finishFlags(cmd *cobra.Command, ours []string, _ split) error {
	if err := cmd.Flags().Parse(ours); err != nil {
		return flagError(cmd, err)
	}
	return nil
}

// flagError words a flag the parser refused (cobra's for the commands it
// parses, ours for the rest): a value of the wrong kind says what the flag
// takes, and a flag this command does not have says whose it is.
func flagError(cmd *cobra.Command, err error) error {
	var worded wordedValue
	var bad *pflag.InvalidValueError
	var missing *pflag.NotExistError
	switch {
	case errors.As(err, &worded):
		return exitf(ExitUsage, "%s", worded.msg)
	case errors.As(err, &bad):
		f := bad.GetFlag()
		return exitf(ExitUsage, "--%s takes %s, got %q. See run-mcp %s --help", f.Name, valueKind(f.Value.Type()), bad.GetValue(), cmd.Name())
	case errors.As(err, &missing) && missing.GetSpecifiedShortnames() == "":
		name := missing.GetSpecifiedName()
		return exitf(ExitUsage, "%s", unknownFlagMessage(cmd, cmd.Flags(), "--"+name, name))
	}
	return exitf(ExitUsage, "%v. See run-mcp %s --help", err, cmd.Name())
}

// valueKind says in words what a flag of a pflag type takes.
func valueKind(typ string) string {
	switch typ {
	case "int":
		return "a whole number"
	case "bool":
		return "true or false"
	case "stringArray", "string":
		return "a word"
	}
	return "a " + typ
}

// whoseFlag names the commands that have a flag of this name ("run-mcp
// (the agent server)" for the root's own), so a flag given to the wrong
// command can say where it belongs. It looks in the whole command tree,
// built afresh: the running one may hold only this command's constructor
// (NewRootFor), and a usage error can afford the tenth of a millisecond.
func whoseFlag(cmd *cobra.Command, name string) []string {
	full := newRoot(cmd.Root().Version, nil, "")
	var owners []string
	if cmd.HasParent() && full.Flags().Lookup(name) != nil {
		owners = append(owners, "run-mcp (the agent server)")
	}
	for _, c := range full.Commands() {
		if c.Name() != cmd.Name() && c.Flags().Lookup(name) != nil {
			owners = append(owners, "run-mcp "+c.Name())
		}
	}
	return owners
}

// lookupFlag finds a flag or fails with a "did you mean", or, for a flag of
// another command, whose it is.
func lookupFlag(cmd *cobra.Command, fs *pflag.FlagSet, tok string) (*pflag.Flag, error) {
	name := strings.TrimLeft(tok, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	var f *pflag.Flag
	if strings.HasPrefix(tok, "--") {
		f = fs.Lookup(name)
	} else if name != "" {
		f = fs.ShorthandLookup(name[:1])
	}
	if f != nil {
		return f, nil
	}
	// Named without what follows "=": a misspelled --env=KEY=VALUE must not
	// print its value.
	shown := tok
	if i := strings.IndexByte(tok, '='); i >= 0 {
		shown = tok[:i] + "=…"
	}
	return nil, exitf(ExitUsage, "%s. If it belongs to the target command, put -- before the target", unknownFlagMessage(cmd, fs, shown, name))
}

// unknownFlagMessage is "unknown flag --x", then where the flag is: a
// close spelling of one of this command's, or the commands that have it.
func unknownFlagMessage(cmd *cobra.Command, fs *pflag.FlagSet, shown, name string) string {
	msg := fmt.Sprintf("unknown flag %s", shown)
	if owners := whoseFlag(cmd, name); len(owners) > 0 && len(name) > 1 {
		if !cmd.HasParent() {
			// Before the subcommand: the agent server's place.
			return msg + fmt.Sprintf(": --%s belongs to %s, so it goes after the subcommand (run-mcp <subcommand> … --%s); "+
				"before one, only the agent server's options go (run-mcp --help lists them)", name, ownerList(owners), name)
		}
		return msg + fmt.Sprintf(": --%s belongs to %s, not to run-mcp %s (run-mcp %s --help lists its flags)",
			name, ownerList(owners), cmd.Name(), cmd.Name())
	}
	if s := suggestFlag(fs, name); s != "" {
		msg += fmt.Sprintf(" (did you mean --%s?)", s)
	}
	return msg
}

// ownerList names a flag's owners, the first two and how many more when
// there are many (every command that reaches a server has --scan).
func ownerList(owners []string) string {
	if len(owners) > 3 {
		return fmt.Sprintf("%s, %s and %d other subcommands", owners[0], owners[1], len(owners)-2)
	}
	return andList(owners)
}

// andList joins words as prose: "a", "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func suggestFlag(fs *pflag.FlagSet, name string) string {
	best, bestDist := "", 3
	fs.VisitAll(func(f *pflag.Flag) {
		if d := didyoumean.Distance(name, f.Name); d < bestDist || (d == bestDist && f.Name < best) {
			best, bestDist = f.Name, d
		}
	})
	return best
}
