package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// terminalSafe is s as run-mcp writes it for a person to read (its status
// lines and errors on stderr, validate's report), with every control
// character made visible instead of obeyed. Much of that text is the
// server's (its stderr lines, error messages, progress messages, names),
// and a terminal would act on its control bytes: clear the screen, set the
// window title (an OSC sequence), ring the bell, hide what came before a
// carriage return. So C0 controls other than tab and newline (ESC, CR, BEL,
// NUL, …) and DEL are written as \xNN, C1 controls (U+0080 to U+009F,
// which some terminals obey too) as \u00NN, and a byte that is not UTF-8
// as \xNN: an escape sequence shows as text, \x1b[2J. JSON output is left
// alone: it carries the text as data, and encoding/json escapes control
// characters itself.
func terminalSafe(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape says s holds something terminalSafe escapes; most text does
// not, and is written as it is.
func needsEscape(s string) bool {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // a C1 control
			return true
		case c >= 0x80:
			ascii = false
		}
	}
	return !ascii && !utf8.ValidString(s)
}
