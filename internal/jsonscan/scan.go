package jsonscan

import "encoding/binary"

// maxDepth bounds nesting; deeper values are left to encoding/json (whose
// own limit is 10,000).
const maxDepth = 1000

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stringSpecial marks the bytes that end a run of plain string bytes: the
// closing quote, a backslash and the control characters JSON forbids raw.
var stringSpecial = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// hasSpecial8 reports whether any of the 8 bytes in x is a quote, a
// backslash or below 0x20 (the classic "has a zero byte" bit tricks).
func hasSpecial8(x uint64) bool {
	q := x ^ ('"' * ones)
	s := x ^ ('\\' * ones)
	return ((q-ones)&^q|(s-ones)&^s|(x-0x20*ones)&^x)&highs != 0
}

// isSpace is JSON's whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] (a
// quote), and whether it has escapes. ok is false for a string JSON forbids.
func skipString(b []byte, i int) (end int, escaped, ok bool) {
	i++ // the opening quote
	for {
		for i+8 <= len(b) && !hasSpecial8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && !stringSpecial[b[i]] {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			n := escapeLen(b, i)
			if n == 0 {
				return 0, false, false
			}
			escaped = true
			i += n
		default: // a raw control character
			return 0, false, false
		}
	}
}

// escapeLen is the length of the valid escape at b[i] (a backslash), 0 if
// it is not one.
func escapeLen(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if i+6 > len(b) {
			return 0
		}
		for _, c := range b[i+2 : i+6] {
			if hexVal(c) < 0 {
				return 0
			}
		}
		return 6
	}
	return 0
}

func hexVal(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// skipValue returns the index just past the value starting at b[i] (no
// leading whitespace); ok is false if there is no valid value there.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := skipString(b, i)
		return end, ok
	case c == '{':
		return skipObject(b, i, depth+1)
	case c == '[':
		return skipArray(b, i, depth+1)
	case c == 't':
		return skipLiteral(b, i, "true")
	case c == 'f':
		return skipLiteral(b, i, "false")
	case c == 'n':
		return skipLiteral(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return skipNumber(b, i)
	}
	return 0, false
}

func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipNumber follows JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func skipObject(b []byte, i, depth int) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, false
		}
		end, _, ok := skipString(b, i)
		if !ok {
			return 0, false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, false
		}
		if i, ok = skipValue(b, skipSpace(b, i+1), depth); !ok {
			return 0, false
		}
		var more bool
		if i, more, ok = afterItem(b, i, '}'); !ok || !more {
			return i, ok
		}
	}
}

func skipArray(b []byte, i, depth int) (int, bool) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = skipValue(b, i, depth); !ok {
			return 0, false
		}
		var more bool
		if i, more, ok = afterItem(b, i, ']'); !ok || !more {
			return i, ok
		}
	}
}

// afterItem reads what follows a member or an element from b[i]: a comma
// (more is true, next is the start of the next one) or close (next is just
// past it).
func afterItem(b []byte, i int, close byte) (next int, more, ok bool) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, false, false
	}
	switch b[i] {
	case ',':
		return skipSpace(b, i+1), true, true
	case close:
		return i + 1, false, true
	}
	return 0, false, false
}
