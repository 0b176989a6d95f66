package session

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// tricky are strings encoding/json escapes: quotes, controls, HTML,
// invalid UTF-8, the line and paragraph separators, and plain text.
var tricky = []string{"", "plain", `q"uo\te`, "tab\tnl\nret\rbs\bff\f", "\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
	"\xff\xfe broken \xc3", "sep\u2028par\u2029", "ünïcødé ✓ 🎉", "\\u0041", strings.Repeat("long ", 300)}

func TestAppendStringIsWhatEncodingJSONWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := append([]string{}, tricky...)
	for range 2000 {
		b := make([]byte, rng.Intn(24))
		for i := range b {
			b[i] = byte(rng.Intn(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	}
}

// fill sets every field of v (a pointer) to a value that is not its zero,
// so that a field the hand encoder forgets shows up as a difference.
func fill(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), seed+i)
		}
	case reflect.String:
		v.SetString(tricky[seed%len(tricky)] + "x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(seed*37 - 5))
	case reflect.Float64:
		v.SetFloat(float64(seed) + 0.25)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.SetBytes([]byte(`{ "message" : "hi", "n": 1.50, "deep": {"a": [1, 2]} }`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), seed)
		fill(s.Index(1), seed+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 3 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, seed+i)
			fill(e, seed+i)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		panic("fill: no case for " + v.Kind().String())
	}
}

func TestTheRequestIsWrittenAsEncodingJSONWritesIt(t *testing.T) {
	full := Request{}
	fill(reflect.ValueOf(&full).Elem(), 3)
	zero := 0
	for name, req := range map[string]Request{
		"every field":   full,
		"a warm call":   {Op: OpCall, Session: "s", Tool: "echo", Args: json.RawMessage(`{"message":"hi"}`), Shorthand: []string{"message"}, Cwd: "/tmp", Options: Options{MediaThreshold: &zero, MaxText: 50000}},
		"a ping":        {Op: OpPing, Session: "s"},
		"empty options": {Op: OpStderr, Session: "s", Count: 3},
	} {
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := req.appendJSON(nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

func TestTheReplyIsWrittenAsEncodingJSONWritesIt(t *testing.T) {
	full := Reply{}
	fill(reflect.ValueOf(&full).Elem(), 2)
	replies := []Reply{full, {}, {Code: -3, Stderr: "run-mcp: x\n"}}
	for i, s := range tricky {
		replies = append(replies, Reply{Code: i, Stdout: s, Stderr: s})
	}
	for _, r := range replies {
		want, _ := json.Marshal(r)
		got, err := r.appendJSON(nil)
		if err != nil || string(got) != string(want) {
			t.Errorf("got %s (%v)\nwant %s", got, err, want)
		}
	}
}

func TestAReplyReadsAsEncodingJSONReadsIt(t *testing.T) {
	var lines []string
	for i, s := range tricky {
		for _, r := range []Reply{{Code: i, Stdout: s}, {Code: -i, Stderr: s}, {Code: 70, Stdout: s, Stderr: s + "!"}, {Info: &Info{Pid: 7, Phase: s}}} {
			b, _ := json.Marshal(r)
			lines = append(lines, string(b))
		}
	}
	lines = append(lines, `{"code":0}`, `{"code":01}`, `{"code":1e2}`, `{"code":-}`, `{"code":99999999999999999999}`, `{"code":1,"stdout":"a"`,
		`{"code":1,"stdout":"a\"}`, `{"code":1,"stdout":"\u00e9\ud83c\udf89\ud800"}`, `{"code":1,"stderr":"x","stdout":"y"}`, `{"code":1,"other":2}`,
		`{"code":1,"stdout":"bad`+"\x01"+`"}`, `{"code":1} `, ` {"code":1}`, `{"code":1,"stdout":1}`, `{}`, `[]`, ``)
	for _, l := range lines {
		var want Reply
		wantErr := json.Unmarshal([]byte(l), &want)
		got, err := decodeReply([]byte(l))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, encoding/json: %v", l, err, wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", l, *got, want)
		}
	}
}

// What plainRequest reads, it reads as encoding/json does; what the client
// writes, it reads.
func TestAPlainRequestReadsAsEncodingJSONReadsIt(t *testing.T) {
	full := Request{}
	fill(reflect.ValueOf(&full).Elem(), 3)
	full.IdleMinutes, full.Caller = nil, nil // sent through json.Marshal, read by decodeJSON
	zero, minus := 0, -1
	reqs := []Request{full,
		{Op: OpCall, Session: "s", Tool: "echo", Args: json.RawMessage(`{"message":"hi"}`), Shorthand: []string{"message"}, Cwd: "/tmp", Options: Options{MediaThreshold: &zero, MaxText: 50000}},
		{Op: OpPing, Session: "s"},
		{Op: OpStderr, Session: "s", Count: 3, Options: Options{Raw: true, MediaThreshold: &minus, TimeoutMS: -5}},
		{Op: OpCall, Session: "s", Tool: "t", Args: json.RawMessage(`{"a":"}{][","b":[{"c":null}],"d":"\"\\"}`)},
	}
	for i := range tricky {
		full := Request{}
		fill(reflect.ValueOf(&full).Elem(), i)
		full.IdleMinutes, full.Caller = nil, nil
		reqs = append(reqs, full)
	}
	for _, req := range reqs {
		line, err := req.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := plainRequest(line)
		if !ok {
			t.Errorf("the client's own line is not read plainly: %s", line)
			continue
		}
		want, err := decodeJSON(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, *got, *want)
		}
	}
	for _, line := range []string{`{"op":"call","session":"s","tool":"t","args":{"a":},"options":{}}`, `{"op":"call","session":"s","tool":"t","args":null,"options":{}}`,
		`{"op":"ping","session":"s","options":{"raw":false}}`, `{"op":"ping","session":"s","options":{},"x":1}`, `{"op":"ping","session":"s","shorthand":[],"options":{}}`,
		`{"op":"ping","session":"s","count":1.5,"options":{}}`, `{"op":"ping","session":"s","count":01,"options":{}}`, `{"op":"ping","session":"s","options":{}} `,
		`{"op":"ping","session":"s","options":{,"raw":true}}`, `{"op":"ping","session":"s","options":{"task":true,"raw":true}}`} {
		if r, ok := plainRequest([]byte(line)); ok {
			t.Errorf("read plainly what the client never writes: %s: %+v", line, *r)
		}
	}
}

func FuzzPlainRequest(f *testing.F) {
	zero := 0
	for _, req := range []Request{{Op: OpCall, Session: "s", Tool: "echo", Args: json.RawMessage(`{"message":"hi","n":[1,{"x":"}"}]}`), Shorthand: []string{"message", "n"},
		Cwd: "/tmp", Options: Options{Raw: true, MediaThreshold: &zero, MaxText: 50000, OutDir: "o", Task: true}}, {Op: OpStderr, Session: "s", Count: 2, Deep: true, JSON: true}} {
		line, _ := req.appendJSON(nil)
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := plainRequest(line)
		if !ok {
			return
		}
		want, err := decodeJSON(line)
		if err != nil {
			t.Fatalf("read plainly what encoding/json refuses (%v): %s", err, line)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", line, *got, *want)
		}
	})
}
