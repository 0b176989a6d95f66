package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// slowToolResult is ParseToolResult as it was before the one-pass walk:
// encoding/json over the whole result. The walk must give what it gives.
func slowToolResult(raw []byte) (toolResult, error) {
	var r toolResult
	err := json.Unmarshal(raw, &r)
	return r, err
}

// trickyTexts are JSON string bodies whose escapes a one-pass unquote can
// get wrong, each long enough to cross the fast 8-byte scan.
var trickyTexts = []string{
	`plain words and more plain words`,
	`quote \" backslash \\ slash \/ controls \b\f\n\r\t end`,
	`bmp \u0041\u00e9\u4e2d nul \u0000 unit sep \u001f`,
	`pair \ud83d\ude00 upper \uD83D\uDE00`,
	`lone high \ud83d then text`, `lone low \ude00 then text`, `high then letter \ud83d\u0041`,
	`high high low \ud83d\ud83d\ude00`, `high, junk, low \ud83dx\ude00`,
	`raw é中😀 multi-byte`, "bad \xff byte and cut \xe2\x82 sequence", "surrogate bytes \xed\xa0\x80 overlong \xc0\xaf",
}

func TestScanToolResultAgreesWithEncodingJSON(t *testing.T) {
	var cases []string
	for _, text := range trickyTexts {
		cases = append(cases, `{"content":[{"type":"text","text":"`+text+`"}]}`)
	}
	cases = append(cases,
		`{"content":[{"type":"text","text":"a","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":"v"}}],"isError":true}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"b"}],"structuredContent":{"n":12345678901234567890}}`,
		`{"content":[{"type":"text","text":"a","data":"x"}]}`,
		`{"content":[{"type":"text","text":null}]}`,
		`{"content":[{"type":"te\u0078t","text":"escaped type"}]}`,
		`{"content":[{"Type":"text","TEXT":"other case"}]}`,
		`{"Content":[{"type":"text","text":"folded key"}]}`,
		`{"content":[{"type":"text","text":"first"},{"type":"text","text":"second"}],"content":[{"type":"text","text":"last wins"}]}`,
		`{"content":null,"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}`,
		`{"content":[],"_meta":{"progressToken":1},"unknown":[1,{"x":2}]}`,
		` { "content" : [ { "type" : "text" , "text" : "spaced" } ] } `,
		`{"content":{}}`, `{"content":[{"type":"text","text":1}]}`, `{"content":[1]}`, `{"isError":"yes","content":[]}`,
		`{"content":[{"type":"text","text":"a"}],}`, `{"content":[{"type":"text","text":"\x"}]}`, `[]`, `{}`,
	)
	for _, raw := range cases {
		checkToolResult(t, raw)
	}
}

func checkToolResult(t *testing.T, raw string) {
	t.Helper()
	want, werr := slowToolResult([]byte(raw))
	got, ok := scanToolResult([]byte(raw))
	if ok && werr != nil {
		t.Fatalf("the walk accepted %s, which encoding/json refuses: %v", raw, werr)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("the walk decodes %s as\n%#v\nencoding/json as\n%#v", raw, got, want)
	}
	res, err := ParseToolResult(json.RawMessage(raw))
	if (err == nil) != (werr == nil && (want.Content != nil || want.ResultType == "input_required")) {
		t.Fatalf("ParseToolResult(%s) err = %v, encoding/json err = %v", raw, err, werr)
	}
	if err == nil && len(res.Content) != len(want.Content) {
		t.Fatalf("ParseToolResult(%s) gives %d items, want %d", raw, len(res.Content), len(want.Content))
	}
}

// TestScanToolResultTakesThePlainTextPath checks the walk does not leave
// the common case to encoding/json, which would be correct but slow.
func TestScanToolResultTakesThePlainTextPath(t *testing.T) {
	for _, text := range trickyTexts {
		if _, ok := scanToolResult([]byte(`{"content":[{"type":"text","text":"` + text + `"}],"isError":false}`)); !ok {
			t.Errorf("the walk refused a plain text result with %q", text)
		}
	}
}

// TestLongTextDecodesAsEncodingJSON builds a long text of escapes and
// multi-byte characters at every alignment of the 8-byte scan and checks
// the decoded text, character for character, against encoding/json's.
func TestLongTextDecodesAsEncodingJSON(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "%d ", i)
		b.WriteString(trickyTexts[i%len(trickyTexts)])
	}
	raw := `{"content":[{"type":"text","text":"` + b.String() + `"}]}`
	got, err := ParseToolResult(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	want, err := slowToolResult([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	gt, wt := textOf(t, got.Content[0]), textOf(t, want.Content[0].content)
	if gt != wt {
		gr, wr := []rune(gt), []rune(wt)
		for k := range min(len(gr), len(wr)) {
			if gr[k] != wr[k] {
				t.Fatalf("texts differ from character %d: %q, encoding/json: %q", k, string(gr[k:min(k+20, len(gr))]), string(wr[k:min(k+20, len(wr))]))
			}
		}
		t.Fatalf("texts differ in length: %d and %d characters", len(gr), len(wr))
	}
}

func textOf(t *testing.T, c mcp.Content) string {
	t.Helper()
	v, ok := c.(mcp.TextContent)
	if !ok {
		t.Fatalf("content %#v is not a text item", c)
	}
	return v.Text
}
func TestScanEnvelopeAgreesWithEncodingJSON(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"run-mcp-3","result":{"content":[{"type":"text","text":"\ud83d\ude00"}]}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no","data":[1]}}`,
		`{"jsonrpc":"2.0","id":null,"result":null}`,
		`{"JSONRPC":"2.0","ID":1,"Result":{}}`, `{"json\u0072pc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":2,"id":1,"result":{}}`, `{"jsonrpc":"2.0","id":{},"result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}} x`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":01}}`, `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, `{"jsonrpc":"2.0","id":1.5,"result":{}}`,
	} {
		var want envelope
		werr := json.Unmarshal([]byte(line), &want)
		got, ok := scanEnvelope([]byte(line))
		if ok && werr != nil {
			t.Fatalf("the walk accepted %s, which encoding/json refuses: %v", line, werr)
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("the walk decodes %s as %+v, encoding/json as %+v", line, got, want)
		}
		if g, gerr := decodeEnvelope([]byte(line)); !reflect.DeepEqual(g, want) || (gerr == nil) != (werr == nil) {
			t.Fatalf("decodeEnvelope(%s) = %+v, %v; encoding/json %+v, %v", line, g, gerr, want, werr)
		}
	}
}

func FuzzScanToolResult(f *testing.F) {
	for _, text := range trickyTexts {
		f.Add(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	}
	f.Add(`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":true,"_meta":{}}`)
	f.Fuzz(func(t *testing.T, raw string) { checkToolResult(t, raw) })
}
