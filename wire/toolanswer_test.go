package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// bigLine is a response with id 7 and result, padded past bigAnswer with
// a member no one reads.
func bigLine(result string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":7,"pad":"` + strings.Repeat("p", bigAnswer) + `","result":` + result + `}`)
}

// decodeLine decodes one line, with key awaited as a tool call or not.
func decodeLine(line []byte, awaited bool) Message {
	var set awaitedCalls
	if awaited {
		set.sent(Outbound{Key: "7", Method: string(mcp.MethodToolsCall)})
	}
	d := decoder{awaited: &set}
	var in Inbound
	d.line(&in, line, time.Unix(1_700_000_000, 0))
	if len(in.Messages) != 1 {
		return Message{}
	}
	return in.Messages[0]
}

// sameAsBytes fails unless a line decoded as an awaited tool call's answer
// is what it is when decoded as any message: the same message, its result
// the same bytes, and, when decoded as a tool result already, the result
// ParseToolResult makes of those bytes.
func sameAsBytes(t *testing.T, result string) {
	t.Helper()
	line := bigLine(result)
	plain, got := decodeLine(line, false), decodeLine(line, true)
	if plain.Tool != nil {
		t.Fatalf("%.80s: decoded as a tool result though no tool call was awaited", result)
	}
	if !bytes.Equal(got.ResultBytes(), plain.Result) {
		t.Fatalf("%.80s: result %.80q, want %.80q", result, got.ResultBytes(), plain.Result)
	}
	if got.Tool != nil {
		want, err := ParseToolResult(plain.Result)
		if err != nil || !reflect.DeepEqual(got.Tool, want) {
			t.Fatalf("%.80s: tool result\n%#v\nwant %#v (%v)", result, got.Tool, want, err)
		}
	}
	got.Tool, got.Result, got.line = nil, plain.Result, plain.line
	if !reflect.DeepEqual(got, plain) {
		t.Fatalf("%.80s: message\n%#v\nwant %#v", result, got, plain)
	}
}

func TestABigToolAnswerIsDecodedOnceAsItWouldBeLater(t *testing.T) {
	onePass := 0
	for _, raw := range toolResultSeeds {
		sameAsBytes(t, raw)
		if decodeLine(bigLine(raw), true).Tool != nil {
			onePass++
		}
	}
	if onePass == 0 {
		t.Fatal("no answer took the one-pass path")
	}
	if m := decodeLine(bigLine(`{"content":[{"type":"text","text":"t"}]}`), true); m.Tool == nil || m.Result != nil {
		t.Errorf("a plain text answer was not decoded in one pass: %+v", m)
	}
}

// Only the answer to a tool call still awaited is decoded in one pass, and
// the call is no longer awaited after it; a small line, or any other
// message, is decoded as any message always was.
func TestOnlyAnAwaitedToolCallsBigAnswerIsDecodedOnce(t *testing.T) {
	text := `{"content":[{"type":"text","text":"t"}]}`
	var set awaitedCalls
	d := decoder{awaited: &set}
	read := func(line []byte) Message {
		var in Inbound
		d.line(&in, line, time.Now())
		return in.Messages[0]
	}
	set.sent(Outbound{Key: "7", Method: string(mcp.MethodResourcesRead)})
	if read(bigLine(text)).Tool != nil {
		t.Error("the answer to a resources/read was decoded as a tool result")
	}
	set.sent(Outbound{Key: "7", Method: string(mcp.MethodToolsCall)})
	if read([]byte(`{"jsonrpc":"2.0","id":7,"result":`+text+`}`)).Tool != nil {
		t.Error("a small answer took the one-pass path")
	}
	if set.waiting() {
		t.Error("a tool call is still awaited after its answer")
	}
	set.sent(Outbound{Key: "7", Method: string(mcp.MethodTasksResult)})
	if m := read(bigLine(text)); m.Tool == nil {
		t.Error("the big answer to a tasks/result was not decoded in one pass")
	}
	if read(bigLine(text)).Tool != nil {
		t.Error("a second answer to the same call was decoded as a tool result")
	}
}

// Through the channel: Send marks a tool call awaited, Forget unmarks it,
// and the big answer comes over as a tool result.
func TestStdioHandsOverABigToolAnswerDecoded(t *testing.T) {
	pt := newPipeTarget(t)
	call := func(key string) {
		t.Helper()
		if err := pt.ch.Send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":` + key + `,"method":"tools/call","params":{"name":"big"}}`), Key: key, Method: "tools/call"}); err != nil {
			t.Fatal(err)
		}
	}
	call("6")
	pt.ch.Forget("6")
	call("7")
	text, _ := json.Marshal(strings.Repeat("x", bigAnswer))
	pt.say(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":`+string(text)+`}]}}`)
	in := pt.next(t, func(in Inbound) bool { return len(in.Messages) == 1 })
	m := in.Messages[0]
	if m.Tool == nil || len(m.Tool.Content) != 1 {
		t.Fatalf("the answer came as %+v", m)
	}
	if tc, ok := m.Tool.Content[0].(mcp.TextContent); !ok || tc.Text != strings.Repeat("x", bigAnswer) {
		t.Errorf("the text came as %T", m.Tool.Content[0])
	}
	if pt.ch.awaited.waiting() {
		t.Error("calls still awaited after the one was answered and the other forgotten")
	}
}

func FuzzToolAnswer(f *testing.F) {
	for _, raw := range toolResultSeeds {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, result string) {
		if !json.Valid([]byte(result)) {
			return
		}
		sameAsBytes(t, result)
	})
}
