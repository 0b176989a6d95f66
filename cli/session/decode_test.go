package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// The binary serves as run-mcp's supervisor of the targets its tests start
// (see supervise.Invoked): dispatch before anything else.
func TestMain(m *testing.M) {
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	goleak.VerifyTestMain(m)
}

func TestDecodeRequestRefusesWhatIsNotTyped(t *testing.T) {
	for _, tc := range []struct {
		line string
		code int
		want string
	}{
		{`garbage`, ExitDataErr, "not valid JSON"},
		{`{"op":"run","argv":["demo-server","--crash-at-start","x"]}`, ExitUsage, "unknown field"},
		{`{"op":"run","argv":null}`, ExitUsage, "unknown field"},
		{`{"op":"run","session":"s"}`, ExitUsage, `does not know the op "run"`},
		{`{"op":"call","session":"s"}`, ExitUsage, "needs the field tool"},
		{`{"op":"read","session":"s"}`, ExitUsage, "needs the field uri"},
		{`{"op":"ping"}`, ExitUsage, "must name its session"},
		{`{"op":"ping","session":"../x"}`, ExitUsage, "must name its session"},
		{`{"op":"call","session":"s","tool":"t","args":[1]}`, ExitDataErr, "args must be a JSON object"},
		{`{"op":"stderr","session":"s","count":-1}`, ExitUsage, "count"},
		{`{"op":"call","session":"s","tool":"t","idle_timeout":-1}`, ExitUsage, "--idle-timeout must be a positive number of minutes"},
		{`{"op":"ping","session":"s"} {"op":"close","session":"s"}`, ExitDataErr, "more after"},
		{`{"op":"ping","session":"s","count":"x"}`, ExitDataErr, `field "count" must be int`},
		{``, ExitDataErr, "empty"},
	} {
		_, err := DecodeRequest([]byte(tc.line))
		var se *Error
		if !errors.As(err, &se) || se.Code != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v (code %v), want exit %d with %q", tc.line, err, se, tc.code, tc.want)
		}
	}
}

func TestDecodeRequestKeepsNumbersExact(t *testing.T) {
	req, err := DecodeRequest([]byte(`{"op":"call","session":"s","tool":"add","args":{"a":12345678901234567890,"b":0.1}}`))
	if err != nil {
		t.Fatal(err)
	}
	args, err := req.ArgMap()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(args)
	if string(b) != `{"a":12345678901234567890,"b":0.1}` {
		t.Fatalf("arguments changed on the way: %s", b)
	}
}

func TestReadLineIsBounded(t *testing.T) {
	big := strings.Repeat("x", 5000) + "\n" + `{"next":1}` + "\n"
	r := bufio.NewReaderSize(strings.NewReader(big), 16)
	_, err := ReadLine(r, 1000)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 5000 || tl.Limit != 1000 {
		t.Fatalf("want too large 5000/1000, got %v", err)
	}
	if err.Error() != "request too large: 5000 bytes (limit 1000)" {
		t.Fatalf("message: %v", err)
	}
	line, err := ReadLine(r, 1000) // the reader is left at the next line
	if err != nil || string(line) != `{"next":1}` {
		t.Fatalf("next line: %q %v", line, err)
	}
	line, err = ReadLine(bufio.NewReader(strings.NewReader(strings.Repeat("y", 1000)+"\n")), 1000)
	if err != nil || len(line) != 1000 {
		t.Fatalf("a line of exactly the limit: %d %v", len(line), err)
	}
}

func TestMismatchNamesTheDifferenceNotTheValues(t *testing.T) {
	rec := &Record{Target: "node a.js", Command: "./a.js", Cwd: "/one", EnvKeys: []string{"K"}, EnvHash: EnvHash(map[string]string{"K": "v1"}), Protocol: "legacy"}
	if d := rec.Mismatch(nil); d != "" {
		t.Fatalf("a caller naming nothing must match: %s", d)
	}
	d := rec.Mismatch(&Caller{Target: "node b.js", EnvGiven: true, EnvKeys: []string{"K"}, EnvHash: EnvHash(map[string]string{"K": "secret-v2"}), Protocol: "2026-07-28"})
	for _, want := range []string{`already running a different server: it runs "node a.js", this call names "node b.js"`, "env differs for: K (names only",
		"running protocol: legacy, this call asks for 2026-07-28"} {
		if !strings.Contains(d, want) {
			t.Errorf("mismatch lacks %q: %s", want, d)
		}
	}
	if strings.Contains(d, "secret") || strings.Contains(d, "v1") {
		t.Errorf("mismatch shows an env value: %s", d)
	}
	if d := rec.Mismatch(&Caller{Target: "node a.js", Command: "./a.js", Cwd: "/two"}); !strings.Contains(d, "already running a different server: the relative command") {
		t.Errorf("a relative command from another directory: %q", d)
	}
	// node srv.js names a file of its directory; npx <package> does not.
	one, two := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(one, "srv.js"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rec = &Record{Target: "node srv.js", Command: "node", Cwd: one}
	if d := rec.Mismatch(&Caller{Target: "node srv.js", Command: "node", Args: []string{"srv.js"}, Cwd: two}); !strings.Contains(d, "already running a different server") {
		t.Errorf("node srv.js from another directory must be refused: %q", d)
	}
	rec = &Record{Target: "npx -y @modelcontextprotocol/server-everything", Command: "npx", Cwd: one}
	if d := rec.Mismatch(&Caller{Target: rec.Target, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Cwd: two}); d != "" {
		t.Errorf("a package name runs the same server anywhere: %q", d)
	}
	// Env: only the variable whose value differs is named.
	rec = &Record{EnvKeys: []string{"A", "B"}, EnvHash: EnvHash(map[string]string{"A": "1", "B": "2"}), EnvHashes: EnvHashes(map[string]string{"A": "1", "B": "2"})}
	env := map[string]string{"A": "1", "B": "3"}
	if d := rec.Mismatch(&Caller{EnvGiven: true, EnvKeys: []string{"A", "B"}, EnvHash: EnvHash(env), EnvHashes: EnvHashes(env)}); !strings.Contains(d, "env differs for: B (") {
		t.Errorf("want only B named: %q", d)
	}
}

// FuzzDecodeRequest: no input panics the decoder, every error carries an
// exit code, and no env value in the request (any string under an "env"
// key, or a tool argument) appears in an error.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"op":"ping","session":"main"}`,
		`{"op":"call","session":"main","tool":"echo","args":{"message":"hi","n":1e400}}`,
		`{"op":"run","argv":["demo-server","--ignore-stdin-eof"],"env":{"API_KEY":"sk-secret-123"}}`,
		`{"op":"sk-secret-123 with spaces","session":"main"}`,
		`{"op":"call","session":"main","tool":"t","args":{"API_KEY":"sk-secret-123"},"count":"sk-secret-123"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeRequest(line)
		if err == nil {
			if req == nil || !knownOp(req.Op) || !ValidName(req.Session) {
				t.Fatalf("accepted an invalid request: %+v", req)
			}
			return
		}
		var se *Error
		if !errors.As(err, &se) || (se.Code != ExitUsage && se.Code != ExitDataErr) {
			t.Fatalf("error without an exit code of 64 or 65: %v", err)
		}
		for _, secret := range secretsIn(line) {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error shows a value of the request (%q): %v", secret, err)
			}
		}
	})
}

// secretsIn lists the strings of a request that must never be echoed: any
// string value under env or args, and any value of an unknown field.
func secretsIn(line []byte) []string {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) >= 6 { // short strings occur in any message by chance
				out = append(out, v)
			}
		case json.Number:
			if len(v) >= 6 {
				out = append(out, string(v))
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "op", "session", "tool", "prompt", "uri":
			if s, ok := v.(string); ok && plainWord.MatchString(s) {
				continue // a plain name may be quoted back
			}
		}
		walk(v)
	}
	return out
}
