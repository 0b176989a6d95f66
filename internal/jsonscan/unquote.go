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
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
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
		sb.Write(b[run:i])
		if i >= len(b) {
			return "", false
		}
		switch c := b[i]; {
		case c == '"':
			if i != len(b)-1 {
				return "", false
			}
			return sb.String(), true
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
