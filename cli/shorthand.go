package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/run-mcp/run-mcp/wire"
)

// isArgWord says whether a word is an argument of the tool rather than the
// start of the target command: key=value, key:=json, a JSON object, "-"
// (the JSON object on stdin) or @path (the JSON object in a file).
func isArgWord(w string) bool {
	if isObjectWord(w) {
		return true
	}
	i := strings.IndexByte(w, '=')
	return i >= 0 && !strings.ContainsAny(w[:i], "/ ")
}

// isObjectWord says whether a word is a whole JSON-object argument (inline,
// "-" or @path): after one, a bare word starts the target command.
func isObjectWord(w string) bool {
	return strings.HasPrefix(strings.TrimSpace(w), "{") || w == "-" || (len(w) > 1 && w[0] == '@')
}

// argSet is the parsed argument words: the values, and which keys were
// written key=value (a string unless the tool's schema says otherwise).
type argSet struct {
	values    map[string]any
	shorthand map[string]bool
}

// parseToolArgs turns the words after a tool name into its arguments:
// one JSON object, or HTTPie-style key=value (a string) and key:=json.
// stringsOnly refuses key:=json (prompt arguments must be strings).
func parseToolArgs(words []string, stringsOnly bool) (map[string]any, error) {
	set, err := parseArgs(words, stringsOnly, strings.NewReader(""))
	return set.values, err
}

// parseArgs is parseToolArgs that also reads "-" from stdin and @path from
// a file, and remembers the key=value keys.
func parseArgs(words []string, stringsOnly bool, stdin io.Reader) (argSet, error) {
	set := argSet{values: map[string]any{}, shorthand: map[string]bool{}}
	for _, w := range words {
		if isObjectWord(w) {
			text, from, err := objectText(w, stdin)
			if err != nil {
				return set, err
			}
			if at := badUTF8(text); at >= 0 {
				if w == text {
					from = "given inline" // not quoted: its bytes are the trouble
				}
				return set, exitf(ExitDataErr, "the JSON arguments %s are not valid UTF-8 (byte %d); JSON text is UTF-8 and run-mcp never replaces bytes. Convert them (iconv -t UTF-8)", from, at+1)
			}
			var obj map[string]any
			if err := decodeExact(text, &obj); err != nil {
				return set, exitf(ExitDataErr, "Invalid JSON arguments %s: %s. Give one JSON object, quoted for your shell, or use key=value and key:=json words", from, wire.JSONWords(err))
			}
			for k, v := range obj {
				if _, ok := v.(string); stringsOnly && !ok {
					return set, exitf(ExitDataErr, "prompt argument %q must be a string, got %s; prompt arguments are strings", k, clip(fmt.Sprint(v)))
				}
				set.values[k] = v
				delete(set.shorthand, k)
			}
			continue
		}
		k, v, err := parseWord(w, stringsOnly)
		if err != nil {
			return set, err
		}
		set.values[k] = v
		set.shorthand[k] = w[len(k)] == '=' // key=value, not key:=json
	}
	return set, nil
}

// objectText is the JSON text of an object word and how to name it in an
// error: inline, from stdin ("-") or from a file (@path).
func objectText(w string, stdin io.Reader) (text, from string, err error) {
	switch {
	case w == "-":
		b, err := io.ReadAll(io.LimitReader(stdin, maxArgsFile+1))
		if err != nil {
			return "", "", exitf(ExitDataErr, "cannot read the JSON arguments from stdin (-): %v", err)
		}
		if len(b) > maxArgsFile {
			return "", "", exitf(ExitDataErr, "the JSON arguments on stdin (-) are over %d MB; pass a smaller object", maxArgsFile>>20)
		}
		return string(b), "from stdin (-)", nil
	case w[0] == '@':
		path := w[1:]
		f, err := os.Open(path)
		if err != nil {
			return "", "", exitf(ExitDataErr, "cannot read the JSON arguments file %s: %v. Give @path to a file holding one JSON object", path, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxArgsFile+1))
		if err != nil || len(b) > maxArgsFile {
			return "", "", exitf(ExitDataErr, "cannot read the JSON arguments file %s (it must be one JSON object under %d MB): %v", path, maxArgsFile>>20, err)
		}
		return string(b), "in " + path, nil
	}
	return w, clip(w), nil
}

// maxArgsFile bounds the JSON arguments read from stdin or a file.
const maxArgsFile = 64 << 20

// parseWord reads one key=value or key:=json word. The key must not be
// empty (":=5" is a slip, not an argument named ""), and the word must be
// UTF-8: JSON cannot carry other bytes, and replacing them would send the
// tool something the user did not type.
func parseWord(w string, stringsOnly bool) (string, any, error) {
	eq := strings.IndexByte(w, '=')
	if eq < 0 {
		return "", nil, exitf(ExitDataErr, "%q is not an argument: write key=value for a string or key:=json for anything else (a bare word is never dropped silently). If it is the target command, put -- before it", w)
	}
	key, typed := w[:eq], strings.HasSuffix(w[:eq], ":")
	if typed {
		key = key[:len(key)-1]
	}
	if key == "" {
		return "", nil, exitf(ExitDataErr, "%q has no key before its %s: an argument is key=value for a string or key:=json for anything else, e.g. count:=5",
			clip(w), w[len(key):eq+1])
	}
	if err := checkUTF8(key, w[eq+1:]); err != nil {
		return "", nil, err
	}
	if typed {
		raw := w[eq+1:]
		if stringsOnly {
			return "", nil, exitf(ExitDataErr, "%s: prompt arguments must be strings, so key:=json is refused; write %s=%s", w, key, raw)
		}
		var v any
		if err := decodeExact(raw, &v); err != nil {
			return "", nil, exitf(ExitDataErr, "%s: the value after := must be JSON (number, true/false, array, object, null or a quoted string): %s. For a plain string use %s=%s", w, wire.JSONWords(err), key, raw)
		}
		return key, v, nil
	}
	return key, w[eq+1:], nil
}

// checkUTF8 refuses an argument whose key or value is not UTF-8, naming
// the key (when it is readable) and where the first bad byte is, never
// the bytes themselves.
func checkUTF8(key, value string) error {
	if at := badUTF8(key); at >= 0 {
		return exitf(ExitDataErr, "an argument's key is not valid UTF-8 (byte %d); JSON text is UTF-8 and run-mcp never replaces bytes. Convert it (iconv -t UTF-8), or write the key in UTF-8", at+1)
	}
	if at := badUTF8(value); at >= 0 {
		return exitf(ExitDataErr, "the value of %q is not valid UTF-8 (byte %d of it); JSON text is UTF-8 and run-mcp never replaces bytes. "+
			"Convert it (iconv -t UTF-8), or for binary data pass base64 text", key, at+1)
	}
	return nil
}

// badUTF8 is the offset of the first byte of s that is not valid UTF-8, or
// -1 when s is valid.
func badUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return i
			}
		}
	}
	return -1
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// decodeExact decodes one JSON value with numbers kept as json.Number, so
// 12345678901234567890 reaches the tool as written, not rounded through
// float64.
func decodeExact(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid character after the JSON value")
	}
	return nil
}

// argumentsHelp is how the argument words are written, for the help of
// the commands that take them.
const argumentsHelp = `Arguments follow the name, in any mix:
  key=value     a string (sent as a number or boolean when the tool's schema says so)
  key:=json     JSON: a number, true or false, an array, an object, null
  '{"k": 1}'    one JSON object of arguments
  -             one JSON object of arguments, read from stdin
  @path         one JSON object of arguments, read from the file at path
A bare word is an error (exit 65), never dropped; put -- before the target command.`
