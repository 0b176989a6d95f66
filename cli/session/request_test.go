package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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
		{`{"op":"ping","session":"s","count":"x"}`, ExitDataErr, `field "count" must be a whole number, not a JSON string`},
		{`{"op":"ping","session":"s","count":1.5}`, ExitDataErr, `field "count" must be a whole number, not a JSON number`},
		{`{"op":"ping","session":"s","options":{"raw":1}}`, ExitDataErr, `field "options.raw" must be true or false, not a JSON number`},
		{`{"op":"ping","session":"s","shorthand":"a"}`, ExitDataErr, `field "shorthand" must be an array, not a JSON string`},
		{`{"op":"ping","session":"s","caller":[]}`, ExitDataErr, `field "caller" must be an object, not a JSON array`},
		{`["ping","s"]`, ExitDataErr, "the request is a JSON array, not an object"},
		{`"ping"`, ExitDataErr, "the request is a JSON string, not an object"},
		{``, ExitDataErr, "empty"},
	} {
		_, err := DecodeRequest([]byte(tc.line))
		var se *Error
		if !errors.As(err, &se) || se.Code != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v (code %v), want exit %d with %q", tc.line, err, se, tc.code, tc.want)
		}
		if err != nil && goTypes.MatchString(err.Error()) {
			t.Errorf("%s: the refusal names a Go type, which means nothing to a user: %v", tc.line, err)
		}
	}
}

// goTypes matches what encoding/json says of Go types ("session.Request",
// "Go value", "int", "float64", "map[string]string").
var goTypes = regexp.MustCompile(`session\.|Go (value|struct)|\b(u?int(8|16|32|64)?|float(32|64)|map\[|\[\]string)\b`)

// What the client writes the daemon reads as it was, whatever the strings
// and arguments hold; HTML characters travel as they are.
func TestARequestReadsAsItWasWritten(t *testing.T) {
	zero, idle := 0, 2.5
	for _, req := range []Request{
		{Op: OpPing, Session: "s"},
		{Op: OpCall, Session: "dev", Tool: "echo", Args: json.RawMessage(`{"message":"<a&b> \u00e9 \u2028","n":12345678901234567890,"x":0.1}`),
			Shorthand: []string{"message"}, Cwd: "/tmp/w", Options: Options{MediaThreshold: &zero, MaxText: 50000, RequestTimeoutMS: 30000, Debug: true}},
		{Op: OpStderr, Session: "s", Count: 3, Options: Options{Raw: true, TimeoutMS: 5}},
		{Op: OpValidate, Session: "s", Deep: true, JSON: true, IdleMinutes: &idle,
			Caller: &Caller{Target: "node srv.js", Command: "node", Args: []string{"srv.js"}, EnvGiven: true, EnvKeys: []string{"K"}, EnvHash: "h", EnvHashes: map[string]string{"K": "h1"}}},
	} {
		line, err := encodeLine(req)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("not one line: %q", line)
		}
		if bytes.Contains(line, []byte(`\u003c`)) {
			t.Errorf("HTML characters were escaped, which makes a request larger than its arguments: %s", line)
		}
		got, err := DecodeRequest(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		want := req
		if len(want.Args) > 0 {
			var buf bytes.Buffer
			_ = json.Compact(&buf, want.Args)
			want.Args = buf.Bytes()
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, *got, want)
		}
	}
}

// A reply reads back as the daemon wrote it.
func TestAReplyReadsAsItWasWritten(t *testing.T) {
	for _, r := range []Reply{{}, {Code: 70, Stdout: "[\n  {\"text\": \"<b>\"}\n]\n", Stderr: "run-mcp: x\n"}, {Info: &Info{Pid: 7, Phase: "live", UptimeMS: 3, IdleMinutes: 1.5, DaemonPid: 8}}} {
		line, err := encodeLine(r)
		if err != nil {
			t.Fatal(err)
		}
		var got Reply
		if err := json.Unmarshal(line, &got); err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("%s: got %+v (%v), want %+v", line, got, err, r)
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
		if goTypes.MatchString(err.Error()) {
			t.Fatalf("the error names a Go type: %v", err)
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
	var quotable []string // plain names and field names, which may be quoted back
	for k, v := range m {
		if plainWord(k) {
			quotable = append(quotable, k)
		}
		switch k {
		case "op", "session", "tool", "prompt", "uri":
			if s, ok := v.(string); ok && plainWord(s) {
				quotable = append(quotable, s)
				continue
			}
		}
		walk(v)
	}
	secrets := out[:0]
	for _, s := range out {
		if !slices.ContainsFunc(quotable, func(q string) bool { return strings.Contains(q, s) }) {
			secrets = append(secrets, s)
		}
	}
	return secrets
}
