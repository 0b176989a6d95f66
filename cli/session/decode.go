package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
)

// Limits on one line of the protocol. A request carries tool arguments, so
// it may be large, but never unbounded: the daemon must not read a 1 GB line
// into memory. A reply carries a tool result (large text is spilled to disk
// by the interceptor before it gets here).
const (
	MaxRequest = 16 << 20
	MaxReply   = 256 << 20
)

// TooLargeError is a line over the limit; Size counts what was read of it
// (all of it when the line ended before the read deadline).
type TooLargeError struct{ Size, Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("request too large: %d bytes (limit %d)", e.Size, e.Limit)
}

// ReadLine reads one line of at most limit bytes (without its newline). A
// longer line is read on to its end without being kept, so the answer can
// say how long it was, and fails with *TooLargeError.
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= int64(limit)+1 { // +1: the newline does not count
			line = append(line, chunk...)
		} else {
			line = nil
		}
		switch {
		case err == nil:
			if size > int64(limit)+1 {
				return nil, &TooLargeError{Size: size - 1, Limit: int64(limit)}
			}
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case size > int64(limit):
			return nil, &TooLargeError{Size: size, Limit: int64(limit)}
		case errors.Is(err, io.EOF) && size > 0:
			return line, nil // the last line, without its newline
		}
		return nil, err
	}
}

// DecodeRequest reads one request line. Its errors never quote a value of
// the request (which may carry tool arguments or secrets): only field
// names, and op and session names when they are short plain words.
func DecodeRequest(line []byte) (*Request, error) {
	req, ok := plainRequest(line)
	if !ok {
		var err error
		if req, err = decodeJSON(line); err != nil {
			return nil, err
		}
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	return req, nil
}

// decodeJSON decodes a request with encoding/json, which tells every
// mistake apart.
func decodeJSON(line []byte) (*Request, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(ExitDataErr, "the request has more after its JSON object; send one JSON object on one line")
	}
	return &req, nil
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// quoted names a client-chosen word only when it is a short plain word.
func quoted(s string) string {
	if plainWord.MatchString(s) {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("(a %d-byte value, not shown)", len(s))
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return errorf(ExitDataErr, "the request is not valid JSON (at byte %d); send one JSON object on one line", syn.Offset)
	case errors.As(err, &typ):
		return errorf(ExitDataErr, "the request's field %q must be %s", typ.Field, typ.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(ExitDataErr, "the request is empty or cut short; send one JSON object on one line")
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return errorf(ExitUsage, "the request has an unknown field %s: requests are typed (op and its parameters), never a command line",
			quoted(strings.Trim(field, `"`)))
	}
	return errorf(ExitDataErr, "the request is not a JSON object of the protocol; send one JSON object on one line")
}

// check refuses an unknown op and missing or impossible fields.
func (r *Request) check() error {
	if r.Op == "" {
		return errorf(ExitUsage, "the request has no op; one of ping, close, %s", opList())
	}
	if !knownOp(r.Op) {
		return errorf(ExitUsage, "the session daemon does not know the op %s; it answers ping, close, %s", quoted(string(r.Op)), opList())
	}
	if r.Session == "" || !ValidName(r.Session) {
		return errorf(ExitUsage, "the request must name its session (field session, a valid session name)")
	}
	need := map[Op][2]string{OpCall: {"tool", r.Tool}, OpDescribe: {"tool", r.Tool}, OpRead: {"uri", r.URI}, OpGetPrompt: {"prompt", r.Prompt}}
	if f, ok := need[r.Op]; ok && f[1] == "" {
		return errorf(ExitUsage, "op %s needs the field %s", r.Op, f[0])
	}
	o := r.Options
	switch {
	case r.Count < 0:
		return errorf(ExitUsage, "count must be 0 or more lines")
	case o.TimeoutMS < 0:
		return errorf(ExitUsage, "timeout_ms must be 0 (the default) or more milliseconds")
	case o.MaxText < -1:
		return errorf(ExitUsage, "max_text must be a positive number of characters, or -1 for no limit")
	case o.MediaThreshold != nil && *o.MediaThreshold < -1:
		return errorf(ExitUsage, "media_threshold must be 0 (always save), -1 (keep inline) or a size in KB")
	case r.IdleMinutes != nil && (math.IsNaN(*r.IdleMinutes) || math.IsInf(*r.IdleMinutes, 0) || *r.IdleMinutes < 0):
		return errorf(ExitUsage, "--idle-timeout must be a positive number of minutes")
	}
	// An object is what the handler decodes: checking its syntax here is a
	// scan, not a decode (the decode is the handler's, once). What the scan
	// leaves in doubt, the decode settles.
	if len(r.Args) == 0 || jsonscan.Object(r.Args, func(string, []byte) bool { return true }) {
		return nil
	}
	if _, err := r.ArgMap(); err != nil {
		return err
	}
	return nil
}

func opList() string {
	names := make([]string, len(handlerOps))
	for i, o := range handlerOps {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

// ArgMap is the request's arguments as an object, numbers as json.Number.
func (r *Request) ArgMap() (map[string]any, error) {
	args := map[string]any{}
	if len(r.Args) == 0 || string(r.Args) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(r.Args))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, errorf(ExitDataErr, "the request's args must be a JSON object of the arguments")
	}
	if args == nil { // "null" with spaces
		args = map[string]any{}
	}
	return args, nil
}
