package actors

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestAdvertisedIsTheTypedCapabilities: the capabilities written out are
// what encoding/json writes for the typed value they stand for.
func TestAdvertisedIsTheTypedCapabilities(t *testing.T) {
	caps := mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	want, err := json.Marshal(caps)
	if err != nil {
		t.Fatal(err)
	}
	if got := advertised(); string(got) != string(want) {
		t.Errorf("advertised() = %s, the typed capabilities encode as %s", got, want)
	}
	var back mcp.ClientCapabilities
	if err := json.Unmarshal(advertised(), &back); err != nil || back.Roots == nil || !back.Roots.ListChanged || back.Sampling == nil ||
		back.Elicitation == nil || back.Elicitation.Form == nil || back.Elicitation.URL == nil {
		t.Errorf("advertised() = %s does not read back as roots (listChanged), sampling and both elicitation modes: %+v, %v", advertised(), back, err)
	}
}
