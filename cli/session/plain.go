package session

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// plainRequest reads a request written as run-mcp's client writes it
// (Request.appendJSON: its fields in order, no spaces, the usual ones
// only) without encoding/json's reflection over the struct, which costs a
// warm call more than the rest of its decoding. ok is false for any other
// line, which decodeJSON then reads (and explains, when it is wrong): what
// is read here is what decodeJSON would read (a fuzz test holds it to
// that).
func plainRequest(line []byte) (*Request, bool) {
	c := cursor{b: line}
	var r Request
	ok := c.lit(`{"op":`) && c.str((*string)(&r.Op)) && c.lit(`,"session":`) && c.str(&r.Session) &&
		c.optStr(`,"tool":`, &r.Tool) && c.optStr(`,"prompt":`, &r.Prompt) && c.optStr(`,"uri":`, &r.URI) &&
		c.optArgs(&r.Args) && c.optList(`,"shorthand":`, &r.Shorthand) && c.optInt(`,"count":`, &r.Count) &&
		c.optTrue(`,"deep":`, &r.Deep) && c.optTrue(`,"json":`, &r.JSON) && c.optStr(`,"cwd":`, &r.Cwd) &&
		c.lit(`,"options":`) && c.options(&r.Options) && c.lit("}") && len(c.b) == 0
	if !ok {
		return nil, false
	}
	return &r, true
}

// cursor reads a line from its start; each method consumes what it read
// and says whether it could.
type cursor struct{ b []byte }

func (c *cursor) lit(s string) bool {
	rest, ok := bytes.CutPrefix(c.b, []byte(s))
	if ok {
		c.b = rest
	}
	return ok
}

// str reads a JSON string as encoding/json reads it.
func (c *cursor) str(dst *string) bool {
	n := stringEnd(c.b)
	if n < 0 || json.Unmarshal(c.b[:n], dst) != nil {
		return false
	}
	c.b = c.b[n:]
	return true
}

// int reads an integer written without a fraction or exponent.
func (c *cursor) int(dst *int) bool {
	n := 0
	if n < len(c.b) && c.b[n] == '-' {
		n++
	}
	digits := n
	for n < len(c.b) && c.b[n] >= '0' && c.b[n] <= '9' {
		n++
	}
	if n == digits || (c.b[digits] == '0' && n > digits+1) {
		return false
	}
	v, err := strconv.Atoi(string(c.b[:n]))
	if err != nil {
		return false
	}
	*dst, c.b = v, c.b[n:]
	return true
}

func (c *cursor) optStr(key string, dst *string) bool { return !c.lit(key) || c.str(dst) }
func (c *cursor) optInt(key string, dst *int) bool    { return !c.lit(key) || c.int(dst) }

// optTrue reads a bool the client writes only when it is true.
func (c *cursor) optTrue(key string, dst *bool) bool {
	if !c.lit(key) {
		return true
	}
	*dst = true
	return c.lit("true")
}

// optList reads a list of strings the client writes only when it is not
// empty.
func (c *cursor) optList(key string, dst *[]string) bool {
	if !c.lit(key) {
		return true
	}
	if !c.lit("[") {
		return false
	}
	for {
		var s string
		if !c.str(&s) {
			return false
		}
		*dst = append(*dst, s)
		if c.lit("]") {
			return true
		}
		if !c.lit(",") {
			return false
		}
	}
}

// optArgs reads the arguments, an object kept as it is written.
func (c *cursor) optArgs(dst *json.RawMessage) bool {
	if !c.lit(`,"args":`) {
		return true
	}
	n := objectEnd(c.b)
	if n < 0 || !json.Valid(c.b[:n]) {
		return false
	}
	*dst = append(json.RawMessage(nil), c.b[:n]...)
	c.b = c.b[n:]
	return true
}

// options reads the Options object: its fields in order, each optional.
func (c *cursor) options(o *Options) bool {
	if !c.lit("{") {
		return false
	}
	sep := "" // before the first field present: none
	field := func(key string, read func() bool) bool {
		if !c.lit(sep + `"` + key + `":`) {
			return true
		}
		sep = ","
		return read()
	}
	trueField := func(key string, dst *bool) bool {
		return field(key, func() bool { *dst = true; return c.lit("true") })
	}
	intField := func(key string, dst *int) bool { return field(key, func() bool { return c.int(dst) }) }
	return trueField("raw", &o.Raw) && trueField("show_stderr", &o.ShowStderr) && intField("timeout_ms", &o.TimeoutMS) &&
		field("out_dir", func() bool { return c.str(&o.OutDir) }) &&
		field("media_threshold", func() bool { o.MediaThreshold = new(int); return c.int(o.MediaThreshold) }) &&
		intField("max_text", &o.MaxText) && intField("request_timeout_ms", &o.RequestTimeoutMS) &&
		trueField("debug", &o.Debug) && trueField("task", &o.Task) && c.lit("}")
}

// objectEnd is the length of the JSON object b starts with, judged by its
// braces outside strings; -1 when b does not start with a whole one.
func objectEnd(b []byte) int {
	if len(b) == 0 || b[0] != '{' {
		return -1
	}
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			n := stringEnd(b[i:])
			if n < 0 {
				return -1
			}
			i += n - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
