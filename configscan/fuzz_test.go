package configscan

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// sentinel marks a secret in fuzz inputs: S3CR3T-<n>.
var sentinel = regexp.MustCompile(`S3CR3T-[0-9]+`)

// secretFields are the maps whose values are secrets.
var secretFields = map[string]bool{"env": true, "headers": true, "http_headers": true, "env_http_headers": true}

// FuzzConfigDecode decodes a config file as readOne does (JSONC, then TOML)
// and lists its servers; its seeds are in testdata/fuzz/FuzzConfigDecode.
// It must never panic, no parse error may quote any
// sentinel, and a sentinel that appears only as an env or header value must
// not appear in the listing.
func FuzzConfigDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := decodeJSONC(data)
		if err != nil {
			if tdoc, terr := decodeTOML(data); terr == nil && tdoc["mcp_servers"] != nil {
				doc, err = tdoc, nil
			} else if terr != nil {
				noSentinel(t, "TOML error", terr.Error())
			}
		}
		if err != nil {
			noSentinel(t, "JSONC error", err.Error())
			return
		}
		c := &collector{}
		c.readShapes(doc, "/fuzz/config.json")
		for _, fe := range c.errors {
			noSentinel(t, "file error", fe.Reason)
		}
		secret, public := map[string]bool{}, map[string]bool{}
		classify(doc, false, secret, public)
		out, err := json.Marshal(c.entries)
		if err != nil {
			t.Fatalf("marshal entries: %v", err)
		}
		for _, s := range sentinel.FindAllString(string(out), -1) {
			if secret[s] && !public[s] {
				t.Fatalf("the value %s of an env or header map is listed: %s", s, out)
			}
		}
	})
}

func noSentinel(t *testing.T, what, msg string) {
	t.Helper()
	if strings.Contains(msg, "S3CR3T") {
		t.Fatalf("%s quotes the input: %q", what, msg)
	}
}

// classify sorts every sentinel in doc into those inside a secret map's
// values and those anywhere else (keys, commands, args), which may be
// listed.
func classify(v any, inSecret bool, secret, public map[string]bool) {
	mark := func(s string, isSecret bool) {
		for _, m := range sentinel.FindAllString(s, -1) {
			if isSecret {
				secret[m] = true
			} else {
				public[m] = true
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			mark(k, false)
			classify(val, inSecret || secretFields[k], secret, public)
		}
	case []map[string]any:
		for _, m := range x {
			classify(m, inSecret, secret, public)
		}
	case []any:
		for _, item := range x {
			classify(item, inSecret, secret, public)
		}
	case string:
		mark(x, inSecret)
	default:
		// Numbers, dates and booleans are listed as their kind at most.
	}
}

func TestBrokenEscapeInASecretIsNotQuoted(t *testing.T) {
	data := []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"node\", \"env\": {\"K\": \"sk-\\q123\"}}\n  }\n}\n")
	_, err := decodeJSONC(data)
	if err == nil {
		t.Fatal("a string with an invalid escape was accepted")
	}
	msg := err.Error()
	if strings.Contains(msg, "sk-") || strings.Contains(msg, "123") {
		t.Errorf("the error quotes the value: %q", msg)
	}
	for _, want := range []string{"line 3, column 43", "a string that is not valid JSON", "bad escape"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}
