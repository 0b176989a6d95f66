package mcpfront

import (
	"encoding/json"
	"testing"
)

func TestPassthroughSwapsOnlyItsPlaceholder(t *testing.T) {
	var p passthrough
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hi","annotations":{"priority":0.7}}],"zzz":1}`)
	placeholder := p.hold(raw)
	res, err := json.Marshal(placeholder)
	if err != nil {
		t.Fatal(err)
	}
	frame := append([]byte(`{"jsonrpc":"2.0","id":7,"result":`), res...)
	frame = append(frame, "}\n"...)
	want := `{"jsonrpc":"2.0","id":7,"result":` + string(raw) + "}\n"
	if got := string(p.swap(frame)); got != want {
		t.Fatalf("swap:\n got %s\nwant %s", got, want)
	}
	// Claimed once: the same frame again is left alone, as is any other.
	if got := string(p.swap(frame)); got != string(frame) {
		t.Fatalf("a claimed placeholder was swapped twice: %s", got)
	}
	other := []byte(`{"jsonrpc":"2.0","id":8,"result":{"content":[]}}` + "\n")
	if got := string(p.swap(other)); got != string(other) {
		t.Fatalf("an ordinary frame changed: %s", got)
	}
}

// A 2026-07-28 host gets resultType added to the target's bytes, which stay
// otherwise as they were; a result that has one already is left alone.
func TestPassthroughAddsResultTypeForAModernHost(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{`{"content":[{"type":"text","text":"hi"}],"zzz":1.50}`, `{"resultType":"complete","content":[{"type":"text","text":"hi"}],"zzz":1.50}`},
		{`{ }`, `{"resultType":"complete" }`},
		{`{"resultType":"complete","content":[]}`, `{"resultType":"complete","content":[]}`},
	} {
		var p passthrough
		placeholder := p.hold(json.RawMessage(tc.raw))
		placeholder.ResultType = "complete"
		res, err := json.Marshal(placeholder)
		if err != nil {
			t.Fatal(err)
		}
		frame := append(append([]byte(`{"jsonrpc":"2.0","id":"a","result":`), res...), "}\n"...)
		want := `{"jsonrpc":"2.0","id":"a","result":` + tc.want + "}\n"
		if got := string(p.swap(frame)); got != want {
			t.Errorf("swap of %s:\n got %s\nwant %s", tc.raw, got, want)
		}
	}
}
