package mcpfront

import (
	"encoding/json"
	"fmt"
)

// A host message over maxHostMessage is never held whole: the reader stops
// keeping it at the cap and streams the rest through an idScan, which finds
// the message's top-level "id" (wherever it is, even after a huge params,
// and never one nested inside params) in constant memory, so the host gets
// an error for that id instead of waiting forever.
//
// This is the one JSON scanner of run-mcp's own, and only for what
// encoding/json cannot do: its Decoder holds every value whole before it
// hands it over (a params string of a gigabyte included), and a host may
// write the id after the params (the TypeScript SDK does). Every message
// that fits under the cap is read by encoding/json; the scanner is held to
// it by FuzzIDScanAgreesWithEncodingJSON.

// maxIDBytes bounds an id we will echo back; a longer one is not an id a
// host would use, and the message is then discarded without an answer.
const maxIDBytes = 1024

// idScan is a byte-at-a-time JSON scanner that tracks only what it needs:
// nesting depth, strings, and the keys and values at the top level.
type idScan struct {
	depth      int
	inStr, esc bool
	strIsKey   bool   // the string being read is a top-level key
	key        []byte // that key, up to len("method")+1 bytes
	keyOver    bool
	expectKey  bool   // at the top level, the next string is a key
	valueOf    string // the top-level key whose value comes next
	capturing  bool   // reading the id's value
	val        []byte
	id         json.RawMessage // the first valid top-level id, if any
	hasMethod  bool            // a top-level "method": a request or notification
	notObject  bool            // the message is not a JSON object
	sawAnyByte bool
}

func (s *idScan) feed(b []byte) {
	for _, c := range b {
		s.byte(c)
	}
}

func (s *idScan) byte(c byte) {
	if s.inStr {
		s.stringByte(c)
		return
	}
	if s.capturing {
		switch c {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			s.finishID()
		default:
			s.capture(c)
			return
		}
	}
	switch c {
	case ' ', '\t', '\r', '\n':
		return
	}
	if !s.sawAnyByte {
		s.sawAnyByte = true
		s.notObject = c != '{'
	}
	top := s.depth == 1
	switch c {
	case '"':
		s.inStr = true
		switch {
		case top && s.expectKey:
			s.strIsKey, s.key, s.keyOver = true, s.key[:0], false
		case top:
			s.startValue('"')
		}
	case '{', '[':
		if top && !s.expectKey {
			s.valueOf = "" // an object or array is no id
		}
		s.depth++
		if s.depth == 1 {
			s.expectKey = true
		}
	case '}', ']':
		s.depth--
	case ':':
		if top {
			s.expectKey = false
		}
	case ',':
		if top {
			s.expectKey, s.valueOf = true, ""
		}
	default:
		if top && !s.expectKey {
			s.startValue(c)
		}
	}
}

func (s *idScan) stringByte(c byte) {
	switch {
	case s.capturing:
		s.capture(c)
	case s.strIsKey:
		if len(s.key) < len("method")+1 {
			s.key = append(s.key, c)
		} else {
			s.keyOver = true
		}
	}
	if s.esc {
		s.esc = false
		return
	}
	switch c {
	case '\\':
		s.esc = true
	case '"':
		s.inStr = false
		if s.capturing {
			s.finishID()
		} else if s.strIsKey {
			s.strIsKey = false
			s.endKey()
		}
	}
}

// endKey notes a top-level key; s.key holds it with its closing quote.
func (s *idScan) endKey() {
	s.valueOf = ""
	if s.keyOver {
		return
	}
	switch string(s.key) {
	case `id"`:
		s.valueOf = "id"
	case `method"`:
		s.hasMethod = true
	}
}

func (s *idScan) startValue(first byte) {
	if s.valueOf == "id" && s.id == nil {
		s.capturing, s.val = true, append(s.val[:0], first)
	}
	s.valueOf = ""
}

func (s *idScan) capture(c byte) {
	if len(s.val) <= maxIDBytes {
		s.val = append(s.val, c)
	}
}

// finishID keeps the captured value if it is an id JSON-RPC allows: a
// string or a number.
func (s *idScan) finishID() {
	s.capturing = false
	v := s.val
	if len(v) > maxIDBytes || !json.Valid(v) {
		return
	}
	var x any
	if json.Unmarshal(v, &x) != nil {
		return
	}
	switch x.(type) {
	case string, float64:
		s.id = append(json.RawMessage(nil), v...)
	}
}

// end finishes a scan at the end of the message (a number id may run to it).
func (s *idScan) end() {
	if s.capturing {
		s.finishID()
	}
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
