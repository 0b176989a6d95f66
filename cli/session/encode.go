package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/run-mcp/run-mcp/internal/predial"
)

// The protocol's lines are written out by hand: a sessioned call is a
// fresh process, and encoding/json's first use of a struct type (reflecting
// over its fields, building its encoder) costs it more than the whole
// encoding. The bytes are what json.Marshal writes (tests hold them to it,
// field by field), so either side reads them as before; the rarely sent
// parts (a caller, an idle timeout, a ping's info) go through json.Marshal.

// appendJSON appends r as json.Marshal encodes it.
func (r *Request) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"op":`...)
	b = appendString(b, string(r.Op))
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	b = appendStringField(b, "tool", r.Tool)
	b = appendStringField(b, "prompt", r.Prompt)
	b = appendStringField(b, "uri", r.URI)
	if len(r.Args) > 0 {
		b = append(b, `,"args":`...)
		var buf bytes.Buffer
		if err := json.Compact(&buf, r.Args); err != nil {
			return nil, err
		}
		b = append(b, buf.Bytes()...)
	}
	if len(r.Shorthand) > 0 {
		b = append(b, `,"shorthand":[`...)
		for i, s := range r.Shorthand {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	b = appendIntField(b, "count", r.Count)
	b = appendBoolField(b, "deep", r.Deep)
	b = appendBoolField(b, "json", r.JSON)
	b = appendStringField(b, "cwd", r.Cwd)
	b = append(b, `,"options":`...)
	b = r.Options.appendJSON(b)
	if r.IdleMinutes != nil {
		v, err := json.Marshal(*r.IdleMinutes)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"idle_timeout":`...), v...)
	}
	if r.Caller != nil {
		v, err := json.Marshal(r.Caller)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"caller":`...), v...)
	}
	return append(b, '}'), nil
}

// appendJSON appends o as json.Marshal encodes it.
func (o *Options) appendJSON(b []byte) []byte {
	n := len(b)
	b = append(b, '{')
	b = appendBoolField(b, "raw", o.Raw)
	b = appendBoolField(b, "show_stderr", o.ShowStderr)
	b = appendIntField(b, "timeout_ms", o.TimeoutMS)
	b = appendStringField(b, "out_dir", o.OutDir)
	if o.MediaThreshold != nil {
		b = appendKey(b, "media_threshold")
		b = strconv.AppendInt(b, int64(*o.MediaThreshold), 10)
	}
	b = appendIntField(b, "max_text", o.MaxText)
	b = appendIntField(b, "request_timeout_ms", o.RequestTimeoutMS)
	b = appendBoolField(b, "debug", o.Debug)
	b = appendBoolField(b, "task", o.Task)
	if len(b) > n+1 {
		b = append(b[:n+1], b[n+2:]...) // the first field's comma
	}
	return append(b, '}')
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStringField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return appendString(appendKey(b, key), v)
}

func appendIntField(b []byte, key string, v int) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(appendKey(b, key), int64(v), 10)
}

func appendBoolField(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	return append(appendKey(b, key), "true"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as encoding/json writes
// it: HTML characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSON appends r as json.Marshal encodes it.
func (r *Reply) appendJSON(b []byte) ([]byte, error) {
	b = strconv.AppendInt(append(b, `{"code":`...), int64(r.Code), 10)
	b = appendStringField(b, "stdout", r.Stdout)
	b = appendStringField(b, "stderr", r.Stderr)
	if r.Info != nil {
		v, err := json.Marshal(r.Info)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"info":`...), v...)
	}
	return append(b, '}'), nil
}

// decodeReply reads the daemon's reply line. The shape the daemon writes
// for a command ({"code":N,"stdout":"…","stderr":"…"}, as json.Marshal
// writes it) is read without decoding into the struct; anything else, a
// ping's info above all, is decoded by encoding/json.
func decodeReply(line []byte) (*Reply, error) {
	if r, ok := plainReply(line); ok {
		return r, nil
	}
	var r Reply
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// plainReply reads {"code":N[,"stdout":S][,"stderr":S]} with nothing
// else in it; ok is false for any other line.
func plainReply(line []byte) (*Reply, bool) {
	code, stdout, stderr, ok := predial.PlainReply(line)
	if !ok {
		return nil, false
	}
	return &Reply{Code: code, Stdout: stdout, Stderr: stderr}, true
}

// stringEnd is the length of the JSON string that b starts with, quotes
// included; -1 when b does not start with a whole one.
func stringEnd(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
