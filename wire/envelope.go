package wire

import (
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/jsonscan"
)

// decodeEnvelope decodes what routes a message. A 20 MB result would cost
// encoding/json two slow passes over the line (validate, then skip the
// result); jsonscan validates and splits it in one fast pass, and only the
// small members go through encoding/json. Anything it does not walk (an
// escaped key, a key in another case, a member of the wrong type) goes to
// encoding/json, which then gives the same value or the same error as ever.
func decodeEnvelope(line []byte) (envelope, error) {
	if env, ok := scanEnvelope(line); ok {
		return env, nil
	}
	var env envelope
	err := json.Unmarshal(line, &env)
	return env, err
}

func scanEnvelope(line []byte) (envelope, bool) {
	var env envelope
	ok := jsonscan.Object(line, func(key string, val []byte) bool {
		switch key {
		case "params":
			env.Params = val
		case "result":
			env.Result = val
		case "jsonrpc":
			if s, ok := jsonscan.Unquote(val); ok {
				env.JSONRPC = s
				return true
			}
			return json.Unmarshal(val, &env.JSONRPC) == nil
		case "id":
			// run-mcp's own ids are strings: read them without
			// encoding/json (RequestId keeps a string as it is).
			if s, ok := jsonscan.Unquote(val); ok {
				id := mcp.NewRequestId(s)
				env.ID = &id
				return true
			}
			return json.Unmarshal(val, &env.ID) == nil
		case "method":
			if s, ok := jsonscan.Unquote(val); ok {
				env.Method = &s
				return true
			}
			return json.Unmarshal(val, &env.Method) == nil
		case "error":
			return json.Unmarshal(val, &env.Error) == nil
		default:
			return !foldsTo(key, "jsonrpc", "id", "method", "params", "result", "error")
		}
		return true
	})
	return env, ok
}

// foldsTo reports whether key matches one of names only the way
// encoding/json's case-insensitive field matching would.
func foldsTo(key string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return true
		}
	}
	return false
}
