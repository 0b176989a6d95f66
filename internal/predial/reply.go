package predial

import (
	"bytes"
	"strconv"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
)

// PlainReply reads the daemon's answer to a command as json.Marshal writes
// it, {"code":N[,"stdout":S][,"stderr":S]}, with nothing else in it; ok is
// false for any other line, which cli/session decodes in full. It is the
// one reading of that shape: cli/session's decodeReply uses it too, so an
// answer taken while run-mcp starts reads as the command would read it.
func PlainReply(line []byte) (code int, stdout, stderr string, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"code":`))
	if !ok {
		return 0, "", "", false
	}
	n := 0
	if n < len(rest) && rest[n] == '-' {
		n++
	}
	digits := n
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == digits || (rest[digits] == '0' && n > digits+1) {
		return 0, "", "", false // no digits, or a leading zero JSON refuses
	}
	code, err := strconv.Atoi(string(rest[:n]))
	if err != nil {
		return 0, "", "", false
	}
	rest = rest[n:]
	for _, f := range []struct {
		key string
		dst *string
	}{{`,"stdout":`, &stdout}, {`,"stderr":`, &stderr}} {
		after, ok := bytes.CutPrefix(rest, []byte(f.key))
		if !ok {
			continue
		}
		s, end, ok := jsonscan.UnquoteAt(after, 0)
		if !ok {
			return 0, "", "", false
		}
		*f.dst, rest = s, after[end:]
	}
	if string(rest) != "}" {
		return 0, "", "", false
	}
	return code, stdout, stderr, true
}
