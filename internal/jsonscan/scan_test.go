package jsonscan

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// members decodes obj with encoding/json for comparison.
func members(t *testing.T, obj string) map[string]string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func TestMembersMatchesEncodingJSON(t *testing.T) {
	for _, obj := range []string{
		`{}`,
		` { } `,
		`{"a":1}`,
		`{"a" : "x\"}y" , "b":[1,{"c":"]"}], "d":{"e":{"f":[]}},"g":true,"h":null,"i":-1.5e3}`,
		`{"type":"tool","name":"echo","arguments":{"message":"hi, \"there\" {[ "},"connection":"c1"}`,
		"{\"k\":\t\"v\"\r\n,\"n\":12345678901234567890}",
	} {
		got := map[string]string{}
		if !Members([]byte(obj), func(k, v []byte) bool { got[string(k)] = string(v); return true }) {
			t.Fatalf("Members(%s) says not an object", obj)
		}
		if want := members(t, obj); !reflect.DeepEqual(got, want) {
			t.Errorf("Members(%s)\n got %v\nwant %v", obj, got, want)
		}
	}
}

func TestMembersRefusesNonObjects(t *testing.T) {
	for _, v := range []string{`[]`, `"x"`, `1`, ``, `null`} {
		if Members([]byte(v), func(k, v []byte) bool { return true }) {
			t.Errorf("Members(%q) took a non-object", v)
		}
	}
}

func TestLookupAndString(t *testing.T) {
	obj := []byte(`{"a":"plain","b":"esc\u00e9\n","c":3}`)
	for key, want := range map[string]string{"a": "plain", "b": "escé\n"} {
		v, ok := Lookup(obj, key)
		s, sok := String(v)
		if !ok || !sok || s != want {
			t.Errorf("%s: got %q (%v %v), want %q", key, s, ok, sok, want)
		}
	}
	if v, ok := Lookup(obj, "c"); !ok || string(v) != "3" {
		t.Errorf("c: %q %v", v, ok)
	}
	if _, ok := String([]byte("3")); ok {
		t.Error("String took a number")
	}
	if _, ok := Lookup(obj, "zz"); ok {
		t.Error("Lookup found a missing key")
	}
}

// FuzzMembers: on any valid object, Members finds exactly the members
// encoding/json finds; on any input it never panics.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,"]"],"b":{"c":"\""}}`, `{"x":"\\"}`, `[1]`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := map[string]string{}
		ok := Members([]byte(s), func(k, v []byte) bool { got[string(k)] = string(v); return true })
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &m) != nil || m == nil {
			return
		}
		if !ok {
			t.Fatalf("Members refused the object %q", s)
		}
		for k, v := range m {
			var key string
			for gk, gv := range got {
				if json.Unmarshal([]byte(`"`+gk+`"`), &key) == nil && key == k {
					var a, b any
					_ = json.Unmarshal(v, &a)
					if json.Unmarshal([]byte(gv), &b) != nil || !reflect.DeepEqual(a, b) {
						t.Fatalf("%q: member %q is %q, want %q", s, k, gv, v)
					}
				}
			}
		}
		if len(got) < len(m) {
			t.Fatalf("%q: Members found %d members, encoding/json %d", s, len(got), len(m))
		}
	})
}
