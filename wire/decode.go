package wire

import (
	"bytes"
	"encoding/json"
	"time"
)

// decoder turns the lines a target writes to stdout into messages, noise and
// transport errors, numbering the lines as it goes.
type decoder struct{ lines int }

// envelope is a JSON-RPC message as encoding/json reads it. Params and
// Result alias the line instead of copying it (a 20 MB result is then held
// once): the line belongs to this one message and is never reused.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  aliasRaw        `json:"params"`
	Result  aliasRaw        `json:"result"`
	Error   *RPCError       `json:"error"`
}

// aliasRaw keeps the bytes of a JSON value without copying them.
type aliasRaw []byte

func (a *aliasRaw) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

// line classifies one line of the target's stdout into in.
func (d *decoder) line(in *Inbound, line []byte, now time.Time) {
	d.lines++
	line = bytes.TrimRight(line, "\r\n")
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return
	}
	if trimmed[0] != '{' {
		d.notJSONRPC(in, line, now, "a JSON value that is not a JSON-RPC message object")
		return
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		d.notJSONRPC(in, line, now, "JSON that does not fit a JSON-RPC message: "+err.Error())
		return
	}
	m := Message{ID: env.ID, Params: json.RawMessage(env.Params), Result: json.RawMessage(env.Result), Error: env.Error, Line: d.lines, Time: now}
	if env.Method != nil {
		m.Method = *env.Method
	}
	if string(bytes.TrimSpace(m.ID)) == "null" {
		m.ID = nil
	}
	if problem := env.problem(); problem != "" {
		in.Errors = append(in.Errors, TransportError{Time: now, Line: d.lines, Message: problem + ": " + excerpt(line)})
		if env.Method != nil && m.ID != nil && validID(m.ID) {
			// A request with an empty method is still a request: its
			// sender waits for an answer, which the owner gives (an error).
			m.Invalid = problem
			in.Messages = append(in.Messages, m)
		}
		return
	}
	in.Messages = append(in.Messages, m)
}

// notJSONRPC files a line under noise (not JSON at all) or transport errors
// (JSON, but not a JSON-RPC message).
func (d *decoder) notJSONRPC(in *Inbound, line []byte, now time.Time, reason string) {
	if !json.Valid(line) {
		in.Noise = append(in.Noise, Noise{Time: now, Line: d.lines, Text: clipText(string(line))})
		return
	}
	in.Errors = append(in.Errors, TransportError{Time: now, Line: d.lines, Message: reason + ": " + excerpt(line)})
}

// problem names how a message breaks JSON-RPC 2.0 ("" when it does not).
func (env *envelope) problem() string {
	hasID := len(env.ID) > 0 && string(bytes.TrimSpace(env.ID)) != "null"
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		return `a message without "jsonrpc": "2.0"`
	case env.Method != nil && *env.Method == "":
		return "a message with an empty method"
	case hasID && !validID(env.ID):
		return "a message whose id is neither a string nor a number"
	case env.Method == nil && !hasID && env.Error == nil:
		return "a message with neither a method nor an id"
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return "a response with neither a result nor an error"
	}
	return ""
}

// validID says a JSON-RPC id is a string or a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

func excerpt(line []byte) string {
	if len(line) > 200 {
		return string(line[:200]) + "…"
	}
	return string(line)
}

// clipText bounds one piece of evidence.
func clipText(s string) string {
	if len(s) > maxEvidenceText {
		return s[:maxEvidenceText] + "…"
	}
	return s
}
