package actors

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The express path writes its tools/call by hand: it must be the request
// Call would send, whatever the name holds.
func TestExpressMessageIsTheRequest(t *testing.T) {
	for _, name := range []string{"echo", `quo"te`, `back\slash`, "tab\there", "<b>&amp;", "é中😀", "ctl\x01"} {
		msg := expressMessage("run-mcp-7", "run-mcp-c-3", name, []byte(`{"n":12345678901234567890,"s":"x"}`))
		var got struct {
			JSONRPC string `json:"jsonrpc"`
			ID      string `json:"id"`
			Method  string `json:"method"`
			Params  struct {
				Meta      map[string]any  `json:"_meta"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(msg, &got); err != nil {
			t.Fatalf("%q: not JSON: %v\n%s", name, err, msg)
		}
		if got.JSONRPC != "2.0" || got.ID != "run-mcp-7" || got.Method != "tools/call" || got.Params.Name != name ||
			!reflect.DeepEqual(got.Params.Meta, map[string]any{"progressToken": "run-mcp-c-3"}) ||
			string(got.Params.Arguments) != `{"n":12345678901234567890,"s":"x"}` {
			t.Errorf("%q: got %+v", name, got)
		}
		if want, _ := json.Marshal(name); string(appendJSONString(nil, name)) != string(want) {
			t.Errorf("%q: quoted as %s, json.Marshal writes %s", name, appendJSONString(nil, name), want)
		}
	}
}
