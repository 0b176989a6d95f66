package jsonscan

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// plainSpecial marks the bytes that end a run copied as is while unquoting:
// stringSpecial's, and every byte of a multi-byte (or invalid) sequence,
// which must be checked as UTF-8.
var plainSpecial = func() (t [256]bool) {
	t = stringSpecial
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// Unquote decodes the JSON string b (with its quotes, nothing around them)
// in one pass, exactly as encoding/json decodes it into a string: escapes
// resolved, a \u escape of half a surrogate pair that is not followed by
// the other half becomes U+FFFD, and so does each byte that is not part of
// valid UTF-8. ok is false if b is not a valid JSON string.
func Unquote(b []byte) (s string, ok bool) {
	s, end, ok := UnquoteAt(b, 0)
	return s, ok && end == len(b)
}

// UnquoteAt is Unquote for the string starting at b[i]; it also returns
// the index just past the string. The string is found first (a fast scan)
// so that its bytes are allocated once, at the size the input bounds.
func UnquoteAt(b []byte, i int) (s string, end int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	end, _, ok = skipString(b, i)
	if !ok {
		return "", 0, false
	}
	s, ok = unquote(b[i:end])
	return s, end, ok
}

// copyStep is the most copied at once.
const copyStep = 256 << 10

// unquote decodes b, a whole JSON string that skipString accepted.
func unquote(b []byte) (string, bool) {
	var sb strings.Builder
	sb.Grow(len(b) - 2)
	i := 1
	for {
		run := i
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if x&highs != 0 || hasSpecial8(x) {
				break
			}
			i += 8
		}
		for i < len(b) && !plainSpecial[b[i]] {
			i++
		}
		// In steps: one copy of many megabytes cannot be preempted, and the
		// collector spins on a CPU until it ends.
		for ; run+copyStep < i; run += copyStep {
			sb.Write(b[run : run+copyStep])
		}
		sb.Write(b[run:i])
		if i >= len(b) {
			return "", false
		}
		switch c := b[i]; {
		case c == '"':
			return sb.String(), i == len(b)-1
		case c == '\\':
			n := unescape(&sb, b, i)
			if n == 0 {
				return "", false
			}
			i += n
		case c < 0x20:
			return "", false
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				sb.WriteRune(utf8.RuneError)
			} else {
				sb.Write(b[i : i+size])
			}
			i += size
		}
	}
}

// unescape writes the escape at b[i] (a backslash) and returns how many
// bytes of b it took, 0 if it is not a valid escape.
func unescape(sb *strings.Builder, b []byte, i int) int {
	n := escapeLen(b, i)
	switch {
	case n == 0:
		return 0
	case n == 2:
		sb.WriteByte(simpleEscape(b[i+1]))
		return 2
	}
	r := hex4(b[i+2:])
	if !utf16.IsSurrogate(r) {
		sb.WriteRune(r)
		return 6
	}
	// encoding/json pairs a surrogate with a following \u escape when the
	// two decode to one character, and otherwise writes U+FFFD for it and
	// reads what follows as it comes.
	if i+6 < len(b) && b[i+6] == '\\' && escapeLen(b, i+6) == 6 && b[i+7] == 'u' {
		if dec := utf16.DecodeRune(r, hex4(b[i+8:])); dec != utf8.RuneError {
			sb.WriteRune(dec)
			return 12
		}
	}
	sb.WriteRune(utf8.RuneError)
	return 6
}

func simpleEscape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

// hex4 is the value of four hex digits already checked by escapeLen.
func hex4(b []byte) rune {
	return hexVal(b[0])<<12 | hexVal(b[1])<<8 | hexVal(b[2])<<4 | hexVal(b[3])
}
