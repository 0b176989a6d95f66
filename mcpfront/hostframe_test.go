package mcpfront

import (
	"encoding/json"
	"reflect"
	"testing"
)

var hostFrameSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"call_mcp_primitive","arguments":{"type":"tool","name":"echo","arguments":{"message":"hi"}},"_meta":{"progressToken":"p1"}}}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"call_mcp_primitive","arguments":null,"_meta":null,"task":{}}}`,
	`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":null}`,
	`{"JSONRPC":"2.0","Method":"tools/call","id":1}`,
	`{"jsonrpc":2,"id":1,"method":"tools/call"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools\u002fcall","params":{"n\u0061me":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`,
	` {"jsonrpc":"2.0","id":1,"method":"tools/call"} `,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call"}x`,
}

// What scan reads is what encoding/json reads; where it cannot tell, it
// says so and the caller decodes with encoding/json.
func TestHostFrameScanMatchesEncodingJSON(t *testing.T) {
	for _, msg := range hostFrameSeeds {
		checkScan(t, msg)
	}
	var fr hostFrame
	if !fr.scan([]byte(hostFrameSeeds[0])) || fr.Params.Name != "call_mcp_primitive" || string(fr.Params.Meta["progressToken"]) != `"p1"` {
		t.Errorf("scan did not read a plain tools/call: %+v", fr)
	}
}

func checkScan(t *testing.T, msg string) {
	t.Helper()
	var got, want hostFrame
	if !got.scan([]byte(msg)) {
		if !reflect.DeepEqual(got, hostFrame{}) {
			t.Fatalf("%s: scan refused but left %+v", msg, got)
		}
		return
	}
	if err := json.Unmarshal([]byte(msg), &want); err != nil {
		t.Fatalf("%s: scan took what encoding/json refuses (%v)", msg, err)
	}
	if !reflect.DeepEqual(normal(got), normal(want)) {
		t.Fatalf("%s:\n scan %+v\n json %+v", msg, got, want)
	}
}

// normal drops the difference between an empty and a nil raw value.
func normal(fr hostFrame) hostFrame {
	for _, p := range []*json.RawMessage{&fr.ID, &fr.Params.Arguments, &fr.Params.Task, &fr.Params.RequestState, &fr.Params.InputResponses} {
		if len(*p) == 0 {
			*p = nil
		}
	}
	return fr
}

func FuzzHostFrameScan(f *testing.F) {
	for _, s := range hostFrameSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) { checkScan(t, msg) })
}
