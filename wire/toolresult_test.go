package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// viaMCPGo decodes a tool result with every item decoded by mcp-go alone:
// what ParseToolResult must give, whichever way it decodes.
func viaMCPGo(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var r toolResult[contentItem]
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode the tool result: %w", err)
	}
	content := make([]mcp.Content, 0, len(r.Content))
	for _, item := range r.Content {
		content = append(content, item.content)
	}
	return toolResultOf(r, content)
}

// sameAsMCPGo fails unless ParseToolResult gives raw the result, or the
// error, that decoding each item with mcp-go gives.
func sameAsMCPGo(t *testing.T, raw string) {
	t.Helper()
	got, gotErr := ParseToolResult(json.RawMessage(raw))
	want, wantErr := viaMCPGo(json.RawMessage(raw))
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s:\nerror %v\nwant  %v", raw, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ngot  %#v\nwant %#v", raw, got, want)
	}
}

var toolResultSeeds = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"content":[{"type":"text","text":"a\nb \u00e9 \ud83d\ude00"}],"isError":true}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":null,"data":null}]}`,
	`{"content":[{"type":"text","text":"x","data":{"not":"a string"}}]}`,
	`{"content":[{"type":"text","text":5}]}`,
	`{"content":[{"TYPE":"text","Text":"case folded"}]}`,
	`{"content":[{"type":"text","text":"one","text":"two"}]}`,
	`{"content":[{"type":"text","text":"t","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v","progressToken":3}}]}`,
	`{"content":[{"type":"text","text":"t","annotations":"bad"}]}`,
	`{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"},{"type":"audio","data":"aGk=","mimeType":"audio/wav","_meta":{"a":1}}]}`,
	`{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png","text":7}]}`,
	`{"content":[{"type":"image"}]}`,
	`{"content":[{"type":"resource_link","uri":"file:///a","name":"a","size":3}]}`,
	`{"content":[{"type":"text","text":"before"},{"type":"resource","resource":{"uri":"file:///a","text":"inside"}}]}`,
	`{"content":[{"type":"resource","resource":{"uri":"file:///b","blob":"aGk=","mimeType":"application/octet-stream"}}]}`,
	`{"content":[{"type":"tool_use","id":"1","name":"n","input":{}}]}`,
	`{"content":[{"type":"mystery"}]}`,
	`{"content":[{"type":7}]}`,
	`{"content":[{"type":null}]}`,
	`{"content":[{}]}`,
	`{"content":[null]}`,
	`{"content":["text"]}`,
	`{"content":{}}`,
	`{"content":null}`,
	`{}`,
	`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}`,
	`{"content":[],"structuredContent":{"n":1.50,"s":"x"}}`,
	`{"content":[],"structuredContent":null}`,
	`{"content":[],"structuredContent":[1,2]}`,
	`{"content":[],"isError":"yes"}`,
	`{"content":[],"_meta":{"progressToken":"t","x":[1]}}`,
	`[]`,
	`"text"`,
}

func TestParseToolResultDecodesAsMCPGo(t *testing.T) {
	for _, raw := range toolResultSeeds {
		sameAsMCPGo(t, raw)
	}
}

func FuzzParseToolResult(f *testing.F) {
	for _, raw := range toolResultSeeds {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return // the channel hands on only what it decoded
		}
		sameAsMCPGo(t, raw)
	})
}

func BenchmarkParseToolResultBigText(b *testing.B) {
	text, _ := json.Marshal(strings.Repeat("line 000001 lorem ipsum dolor sit amet, consectetur adipiscing eli\n", 300_000))
	raw := json.RawMessage(`{"content":[{"type":"text","text":` + string(text) + `}]}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := ParseToolResult(raw); err != nil {
			b.Fatal(err)
		}
	}
}
