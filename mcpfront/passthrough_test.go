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
