package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/run-mcp/run-mcp/wire"
)

// DecodeRequest reads one request line with encoding/json into the typed
// Request: an unknown field, a value of the wrong kind, trailing data, an
// unknown op or a missing parameter is refused with an error that carries
// its exit code. Its errors never quote a value of the request (which may
// carry tool arguments or secrets): only field names, and op and session
// names when they are short plain words.
func DecodeRequest(line []byte) (*Request, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errorf(ExitDataErr, "the request has more after its JSON object; send one JSON object on one line")
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	return &req, nil
}

// plainWord says whether s is a short word made of letters, digits, '.',
// '_' and '-' (starting with a letter or digit): safe to quote back, since
// no secret looks like the name of an op, a session or a tool.
func plainWord(s string) bool { return len(s) <= 64 && ValidName(s) }

// quoted names a client-chosen word only when it is a short plain word.
func quoted(s string) string {
	if plainWord(s) {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("(a %d-byte value, not shown)", len(s))
}

// decodeError says what encoding/json found wrong, in the protocol's words
// (JSON kinds and field names, never a Go type).
func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return errorf(ExitDataErr, "the request is not valid JSON (at byte %d); send one JSON object on one line", syn.Offset)
	case errors.As(err, &typ) && typ.Field == "":
		return errorf(ExitDataErr, "the request is a JSON %s, not an object; send one JSON object on one line", kindOf(typ.Value))
	case errors.As(err, &typ):
		return errorf(ExitDataErr, "the request's field %q must be %s, not a JSON %s", typ.Field, wire.JSONKind(typ.Type), kindOf(typ.Value))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(ExitDataErr, "the request is empty or cut short; send one JSON object on one line")
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return errorf(ExitUsage, "the request has an unknown field %s: requests are typed (op and its parameters), never a command line",
			quoted(strings.Trim(field, `"`)))
	}
	return errorf(ExitDataErr, "the request is not a JSON object of the protocol; send one JSON object on one line")
}

// kindOf is the JSON kind encoding/json names in an UnmarshalTypeError
// ("string", "number", "number 1.5", "array", …) without the value it may
// add after it.
func kindOf(value string) string {
	kind, _, _ := strings.Cut(value, " ")
	return kind
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
	// The decoder has checked the arguments are valid JSON; they must be an
	// object (or absent), which its first byte says.
	if args := bytes.TrimSpace(r.Args); len(args) > 0 && args[0] != '{' && string(args) != "null" {
		return errorf(ExitDataErr, "the request's args must be a JSON object of the arguments")
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

// ArgMap is the request's arguments as an object, numbers as json.Number
// (exact, never through float64).
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
