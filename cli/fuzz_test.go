package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

var sentinel = regexp.MustCompile(`S3CR3T-[0-9]+`)

// FuzzShorthand splits a command line (words separated by NUL) as call does,
// then parses its argument words and its --env values. It must never panic,
// and a sentinel that appears only in an --env value may appear in no error.
// Seeds: testdata/fuzz/FuzzShorthand.
func FuzzShorthand(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string, stringsOnly bool) {
		raw := strings.Split(line, "\x00")
		cmd, g := newTestCmd()
		var errs []error
		sp, err := splitArgs(cmd, raw, layout{positionals: 1, argWords: true})
		errs = append(errs, err)
		if err == nil {
			_, err = parseToolArgs(sp.argWords, stringsOnly)
			errs = append(errs, err)
			_, err = g.parseEnv()
			errs = append(errs, err)
		}
		secret, public := envSentinels(raw, func(tok string) *pflag.Flag {
			c, _ := newTestCmd()
			fs := c.Flags()
			fs.AddFlagSet(c.InheritedFlags())
			fl, _ := lookupFlag(c, fs, tok)
			return fl
		})
		for _, err := range errs {
			if err == nil {
				continue
			}
			for _, s := range sentinel.FindAllString(err.Error(), -1) {
				if secret[s] && !public[s] {
					t.Fatalf("an --env value is in the error %q (argv %q)", err, raw)
				}
			}
		}
	})
}

// envSentinels sorts the sentinels of argv (before --) into those inside an
// --env value (after its first "=", or the whole value without one) or in
// the value attached to an unknown flag (a misspelled --env=K=V), and those
// anywhere else. It walks flags as splitArgs does, with lookup standing for
// the command's flag set.
func envSentinels(raw []string, lookup func(tok string) *pflag.Flag) (secret, public map[string]bool) {
	secret, public = map[string]bool{}, map[string]bool{}
	mark := func(s string, m map[string]bool) {
		for _, x := range sentinel.FindAllString(s, -1) {
			m[x] = true
		}
	}
	envValue := func(v string) {
		if k, val, ok := strings.Cut(v, "="); ok {
			mark(k, public)
			mark(val, secret)
		} else {
			mark(v, secret)
		}
	}
	for i := 0; i < len(raw); i++ {
		tok := raw[i]
		if tok == "--" {
			for _, rest := range raw[i+1:] {
				mark(rest, public)
			}
			break
		}
		if !strings.HasPrefix(tok, "-") || len(tok) < 2 || isNumber(tok) {
			mark(tok, public)
			continue
		}
		fl := lookup(tok)
		var attached string
		hasAttached := false
		if j := strings.IndexByte(tok, '='); j >= 0 {
			attached, hasAttached = tok[j+1:], true
		} else if attachedShort(tok) {
			attached, hasAttached = tok[2:], true
		}
		switch {
		case fl == nil:
			// Unknown: its attached value may be a misspelled --env=K=V.
			mark(strings.SplitN(tok, "=", 2)[0], public)
			if hasAttached && strings.Contains(tok, "=") {
				envValue(attached)
			}
		case fl.Name == "env" && hasAttached:
			envValue(strings.TrimPrefix(attached, "="))
		case hasAttached || fl.NoOptDefVal != "":
			mark(tok, public)
		case i+1 < len(raw):
			i++
			if fl.Name == "env" {
				envValue(raw[i])
			} else {
				mark(raw[i], public)
			}
		}
	}
	return secret, public
}
