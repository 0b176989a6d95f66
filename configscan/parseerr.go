package configscan

import (
	"strconv"
	"strings"
)

// A parse error says where and what kind of mistake, never the text there:
// config files hold env and header values, and both parsers quote the text
// they choked on (hujson a whole string literal, so an env value with a bad
// escape would be shown in full). These are reduced to fixed wordings.

// hujsonPos reads the position hujson puts at the start of its messages.
var hujsonPos = lazyRegexp(`^hujson: line (\d+), column (\d+): `)

// jsoncError turns a hujson error into file position plus kind.
func jsoncError(data []byte, err error) error {
	msg := err.Error()
	where := ""
	if m := hujsonPos().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		where = "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ": "
		msg = msg[len(m[0]):]
	}
	return &parseError{format: "JSON, even allowing comments and trailing commas", where: where, kind: jsoncKind(msg)}
}

// jsoncPlaces are where hujson says an unexpected character was; fixed text
// of the parser, so safe to repeat.
var jsoncPlaces = []string{
	"after top-level value", "at start of object name", "after object name",
	"after object value (expecting ',' or '}')", "after array value (expecting ',' or ']')",
	"at start of value", "in line comment", "in block comment",
}

func jsoncKind(msg string) string {
	switch {
	case strings.HasPrefix(msg, `invalid literal: "`):
		return `a string that is not valid JSON (a bad escape such as \q, where \\ is meant, or a line break or control character inside the quotes)`
	case strings.HasPrefix(msg, "invalid literal: "):
		return "a bare word where a value belongs (strings need double quotes; true, false and null are lower case)"
	case strings.Contains(msg, "unexpected EOF"):
		return "the file ends too early (a missing closing quote, } or ])"
	case strings.Contains(msg, "invalid UTF-8"):
		return "bytes that are not valid UTF-8"
	case strings.HasPrefix(msg, "invalid character"):
		for _, place := range jsoncPlaces {
			if strings.HasSuffix(msg, place) {
				return "an unexpected character " + place
			}
		}
		return "an unexpected character"
	}
	return "a syntax error"
}

// tomlQuoted matches what the TOML parser quotes in its messages, in double
// or single quotes: a rune, a token, a key or a piece of a value.
var tomlQuoted = lazyRegexp(`"(?:[^"\\]|\\.)*"|'[^']*'`)

// tomlSyntax are quoted pieces of the TOML parser's own wording (the syntax
// it expected), kept because they say how to fix the line.
var tomlSyntax = []string{`'.' or ']'`, `'.' or '='`, `delimiter ']'`, `(',')`, `(']')`, `terminator '}'`, `after '\x'`, `after '\u'`, `after '\U'`}

// tomlKind keeps the TOML parser's wording (it is specific and helpful) with
// every other quoted piece replaced, so no part of a value survives.
func tomlKind(msg string) string {
	kept := make([]string, 0, 2)
	for _, fixed := range tomlSyntax {
		if strings.Contains(msg, fixed) {
			msg = strings.ReplaceAll(msg, fixed, "\x00"+strconv.Itoa(len(kept))+"\x00")
			kept = append(kept, fixed)
		}
	}
	msg = tomlQuoted().ReplaceAllString(msg, "…")
	// Anything quoted unevenly is cut at its first quote.
	if i := strings.IndexAny(msg, `"'`); i >= 0 {
		msg = strings.TrimSpace(msg[:i]) + " …"
	}
	for k, fixed := range kept {
		msg = strings.ReplaceAll(msg, "\x00"+strconv.Itoa(k)+"\x00", fixed)
	}
	return strings.TrimSuffix(msg, ".")
}

type parseError struct{ format, where, kind string }

func (e *parseError) Error() string {
	return "not valid " + e.format + ": " + e.where + e.kind + "; fix the syntax there"
}
