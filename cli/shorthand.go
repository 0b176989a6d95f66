package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// isArgWord says whether a word is an argument of the tool rather than the
// start of the target command: key=value, key:=json, or a JSON object.
func isArgWord(w string) bool {
	if strings.HasPrefix(strings.TrimSpace(w), "{") {
		return true
	}
	i := strings.IndexByte(w, '=')
	return i > 0 && !strings.ContainsAny(w[:i], "/ ")
}

// parseToolArgs turns the words after a tool name into its arguments:
// one JSON object, or HTTPie-style key=value (a string) and key:=json.
// stringsOnly refuses key:=json (prompt arguments must be strings).
func parseToolArgs(words []string, stringsOnly bool) (map[string]any, error) {
	args := map[string]any{}
	for _, w := range words {
		if strings.HasPrefix(strings.TrimSpace(w), "{") {
			var obj map[string]any
			if err := decodeJSON(w, &obj); err != nil {
				return nil, exitf(ExitDataErr, "the arguments %s are not valid JSON: %v. Quote the object for your shell, or use key=value and key:=json words", clip(w), err)
			}
			for k, v := range obj {
				if s, ok := v.(string); stringsOnly && !ok {
					return nil, exitf(ExitDataErr, "prompt argument %q must be a string, got %s; prompt arguments are strings", k, clip(fmt.Sprint(v)))
				} else if ok {
					v = s
				}
				args[k] = v
			}
			continue
		}
		k, v, err := parseWord(w, stringsOnly)
		if err != nil {
			return nil, err
		}
		args[k] = v
	}
	return args, nil
}

func parseWord(w string, stringsOnly bool) (string, any, error) {
	if eq := strings.IndexByte(w, '='); eq > 1 && w[eq-1] == ':' {
		key, raw := w[:eq-1], w[eq+1:]
		if stringsOnly {
			return "", nil, exitf(ExitDataErr, "%s: prompt arguments must be strings, so key:=json is refused; write %s=%s", w, key, raw)
		}
		var v any
		if err := decodeJSON(raw, &v); err != nil {
			return "", nil, exitf(ExitDataErr, "%s: the value after := must be JSON (number, true/false, array, object, null or a quoted string): %v. For a plain string use %s=%s", w, err, key, raw)
		}
		return key, v, nil
	}
	if i := strings.IndexByte(w, '='); i > 0 {
		return w[:i], w[i+1:], nil
	}
	return "", nil, exitf(ExitDataErr, "%q is not an argument: write key=value for a string or key:=json for anything else (a bare word is never dropped silently). If it is the target command, put -- before it", w)
}

// decodeJSON decodes one JSON value, every number kept as its literal
// (json.Number), so n:=12345678901234567890 reaches the server with every
// digit; float64 would send 12345678901234567000.
func decodeJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("unexpected data after the JSON value")
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
