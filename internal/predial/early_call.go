package predial

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// The defaults of the flags an early call leaves out. cli's flags hold the
// same (intercept.DefaultMediaThresholdKB, intercept.DefaultMaxText,
// actors.DefaultRequestTimeout), which this package cannot import; cli's
// tests send each early line through the real command and compare.
const (
	defaultMediaKB   = 0
	defaultMaxText   = 50_000
	defaultRequestMS = 30_000
)

// CallLine is the request line (newline included) that `run-mcp call`
// sends to its session's daemon for args (os.Args[1:]), byte for byte, for
// the command lines simple enough to be sure of it before the cli reads
// them: `call TOOL [key=value ...] --session NAME` in any order, with no
// other flag, no key:=json, no JSON object and no target command. Any other
// line gives false, and the command sends its own request as it always did.
//
// Being sure matters: a line sent early is a call made, so a command line
// this function gets wrong would run a tool with arguments nobody typed.
// The cli compares its own request with this line before taking the
// answer, and refuses (exit 70) rather than print an answer to another
// call.
func CallLine(args []string, cwd string, debug bool) ([]byte, bool) {
	tool, session, words, ok := simpleCall(args)
	if !ok {
		return nil, false
	}
	values := make(map[string]string, len(words))
	keys := make([]string, 0, len(words))
	for _, w := range words {
		k, v, _ := strings.Cut(w, "=")
		if _, dup := values[k]; dup {
			return nil, false // the cli keeps the last; too rare to mirror
		}
		values[k] = v
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := make([]byte, 0, 256)
	b = append(b, `{"op":"call","session":`...)
	b = appendString(b, session)
	b = append(b, `,"tool":`...)
	b = appendString(b, tool)
	b = append(b, `,"args":{`...)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		b = appendString(b, values[k])
	}
	b = append(b, '}')
	if len(keys) > 0 {
		b = append(b, `,"shorthand":[`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
		}
		b = append(b, ']')
	}
	if cwd != "" {
		b = append(b, `,"cwd":`...)
		b = appendString(b, cwd)
	}
	b = append(b, `,"options":{"media_threshold":`...)
	b = strconv.AppendInt(b, defaultMediaKB, 10)
	b = append(b, `,"max_text":`...)
	b = strconv.AppendInt(b, defaultMaxText, 10)
	b = append(b, `,"request_timeout_ms":`...)
	b = strconv.AppendInt(b, defaultRequestMS, 10)
	if debug {
		b = append(b, `,"debug":true`...)
	}
	return append(b, "}}\n"...), true
}

// simpleCall splits a call's command line of the simple shape CallLine
// takes: the tool, the session and the key=value words.
func simpleCall(args []string) (tool, session string, words []string, ok bool) {
	if len(args) < 2 || args[0] != "call" {
		return "", "", nil, false
	}
	for i := 1; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--session" && i+1 < len(args) && session == "":
			i++
			session = args[i]
		case strings.HasPrefix(w, "--session=") && session == "":
			session = strings.TrimPrefix(w, "--session=")
		case strings.HasPrefix(w, "-"):
			return "", "", nil, false // another flag, "-" (stdin), "--", a second --session
		case tool == "":
			if w == "" {
				return "", "", nil, false
			}
			tool = w
		case shorthandWord(w):
			words = append(words, w)
		default:
			return "", "", nil, false
		}
	}
	if tool == "" || !ValidName(session) {
		return "", "", nil, false
	}
	return tool, session, words, true
}

// shorthandWord is a key=value word as the cli reads it (a string value):
// not a JSON object, @path or key:=json, and a key with no '/' or space
// (which would make the word a target command's).
func shorthandWord(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 || strings.ContainsAny(w[:eq], "/ ") || w[eq-1] == ':' {
		return false
	}
	return !strings.HasPrefix(strings.TrimSpace(w), "{") && w[0] != '@'
}

// appendString appends s as encoding/json writes a string (HTML characters,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD), which is how the cli
// writes it.
func appendString(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil { // a string always encodes
		panic(err)
	}
	return append(b, q...)
}
