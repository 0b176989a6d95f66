package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tricky are strings whose escapes a one-pass unquote can get wrong.
var tricky = []string{
	`""`, `"a"`, `"plain ascii longer than eight bytes"`,
	`"\" \\ \/ \b \f \n \r \t"`,
	`"\u0041\u00e9\u4e2d\u0000\u001f"`,
	`"\ud83d\ude00 a pair"`, `"\uD83D\uDE00"`,
	`"\ud83d lone high"`, `"\ude00 lone low"`, `"\ud83d\u0041 high then letter"`,
	`"\ud83d\ud83d\ude00 high high low"`, `"\ud83dx\ude00"`, `"\ud83dxude00 lookalike"`,
	`"end with high \ud83d"`,
	`"é中😀 raw multi-byte"`, "\"bad \xff byte\"", "\"cut \xe2\x82\"", "\"surrogate bytes \xed\xa0\x80\"",
	"\"overlong \xc0\xaf\"", `"12345678\n12345678\"12345678"`,
	strings.Repeat(`"`+strings.Repeat("word ", 30)+`\n`, 1) + `"`,
	// invalid: each must be refused
	`"`, `"abc`, `"a"b"`, "\"tab\there\"", `"\x"`, `"\u12"`, `"\u12G4"`, `"\'"`, `abc`, `"\`,
}

func TestUnquoteAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range tricky {
		checkUnquote(t, in)
	}
}

func checkUnquote(t *testing.T, in string) {
	t.Helper()
	if strings.Trim(in, " \t\r\n") != in {
		return // Unquote takes the string alone; encoding/json allows space around it
	}
	var want string
	werr := json.Unmarshal([]byte(in), &want)
	got, ok := Unquote([]byte(in))
	if ok != (werr == nil) {
		t.Fatalf("Unquote(%q): ok=%v, encoding/json err=%v", in, ok, werr)
	}
	if ok && got != want {
		t.Fatalf("Unquote(%q) = %q, encoding/json gives %q", in, got, want)
	}
}

var values = []string{
	`null`, `true`, `false`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `{}`, `[]`, ` [ 1 , 2 ] `,
	`{"a":{"b":[1,{"c":null}]},"d":"\u00e9"}`,
	`01`, `1.`, `.5`, `-`, `1e`, `+1`, `tru`, `nul`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`,
	`{"a":1}}`, `{"a" 1}`, `{1:2}`, `"x" "y"`, ``, ` `, `{"a":1`, `[`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range append(values, tricky...) {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid = %v", in, got, want)
		}
	}
}

func TestObjectGivesEachMemberAsWritten(t *testing.T) {
	in := ` {"jsonrpc":"2.0", "id" : 7,"result":{"content":[{"type":"text","text":"a\nb"}]},"x":[1,2] } `
	var keys []string
	var vals []string
	if !Object([]byte(in), func(k string, v []byte) bool {
		keys, vals = append(keys, k), append(vals, string(v))
		return true
	}) {
		t.Fatal("Object refused a valid object")
	}
	want := []string{`"2.0"`, `7`, `{"content":[{"type":"text","text":"a\nb"}]}`, `[1,2]`}
	if strings.Join(keys, ",") != "jsonrpc,id,result,x" || strings.Join(vals, "|") != strings.Join(want, "|") {
		t.Fatalf("members %q = %q", keys, vals)
	}
	for _, bad := range []string{`[1]`, `{"a":1} x`, `{"a\u0062":1}`, `{"a":1,}`, `{"a":01}`} {
		if Object([]byte(bad), func(string, []byte) bool { return true }) {
			t.Errorf("Object accepted %q", bad)
		}
	}
}

func TestArrayGivesEachElement(t *testing.T) {
	var got []string
	if !Array([]byte(`[ {"a":1} , "s",null]`), func(v []byte) bool { got = append(got, string(v)); return true }) {
		t.Fatal("Array refused a valid array")
	}
	if strings.Join(got, "|") != `{"a":1}|"s"|null` {
		t.Fatalf("elements = %q", got)
	}
	if Array([]byte(`[1,]`), func([]byte) bool { return true }) {
		t.Error("Array accepted a trailing comma")
	}
}

func FuzzUnquote(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { checkUnquote(t, in) })
}

func FuzzValid(f *testing.F) {
	for _, s := range append(values, tricky...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := Valid([]byte(in)), json.Valid([]byte(in)); got != want && strings.Count(in, "[")+strings.Count(in, "{") < maxDepth {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", in, got, want)
		}
	})
}

func TestLookupFindsTheLastMember(t *testing.T) {
	obj := []byte(`{"content":[1],"x":{"content":"nested"},"content":[2,3]}`)
	if v, ok := Lookup(obj, "content"); !ok || string(v) != "[2,3]" {
		t.Errorf("Lookup content: %s %v, want [2,3] (the last, as encoding/json)", v, ok)
	}
	if _, ok := Lookup(obj, "missing"); ok {
		t.Error("Lookup found a missing member")
	}
	if _, ok := Lookup([]byte(`[1]`), "content"); ok {
		t.Error("Lookup took an array for an object")
	}
}
