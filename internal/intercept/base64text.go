package intercept

import "strings"

// minBase64Chars is how long a text must be before we treat it as an
// encoded file rather than an ordinary word or token.
const minBase64Chars = 1000

// base64Text reports whether s is nothing but base64: lines of the base64
// alphabet, whitespace only at line ends, '=' padding only at the very end,
// and at least minBase64Chars payload characters. It scans without
// allocating and stops at the first character that rules it out, so prose
// costs almost nothing.
//
// It also requires upper case, lower case and digits to all appear. Encoded
// binary always mixes them, while long runs of digits, hex dumps and hashes
// are in the alphabet too and must stay text.
func base64Text(s string) bool {
	s = strings.TrimSpace(s)
	body := strings.TrimRight(s, "=")
	if len(s)-len(body) > 2 || len(body) < minBase64Chars {
		return false
	}
	payload, seen := 0, charClass(0)
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimRight(line, " \t\r")
		for k := range len(line) {
			c := classOf(line[k])
			if c == 0 {
				return false
			}
			seen |= c
		}
		payload += len(line)
	}
	return payload >= minBase64Chars && seen&mixed == mixed
}

// charClass is a bit set of the base64 character classes seen.
type charClass uint8

const (
	upper charClass = 1 << iota
	lower
	digit
	symbol // '+' or '/'
	mixed  = upper | lower | digit
)

// classOf returns 0 for a byte outside the base64 alphabet.
func classOf(c byte) charClass {
	switch {
	case c >= 'A' && c <= 'Z':
		return upper
	case c >= 'a' && c <= 'z':
		return lower
	case c >= '0' && c <= '9':
		return digit
	case c == '+' || c == '/':
		return symbol
	}
	return 0
}

// saveBase64Text saves a base64 text item to a file whatever it decodes to,
// named and described by what the decoded bytes show (an image, audio, a
// PDF, an archive; binary data as .bin otherwise). ok is false when the text
// only looked like base64 but does not decode, or is under the media
// threshold; the caller then treats it as ordinary text.
func (p *pass) saveBase64Text(s string) (note string, ok bool, err error) {
	if !base64Text(s) || !p.i.shouldSave(decodedLen(s)) {
		return "", false, nil
	}
	data, err := decodeBase64(s)
	if err != nil {
		return "", false, nil
	}
	what := sniffPayload(data)
	note, err = p.saveLabelled(what.kind, what.label, data, what.ext)
	return note, err == nil, err
}
