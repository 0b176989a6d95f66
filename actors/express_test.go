package actors

import (
	"context"
	"encoding/json"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/wire"
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

// wedgingHost answers a form after wedging the connection's actor, so
// nothing posted to its mailbox runs until the test releases it.
type wedgingHost struct {
	Headless
	conn    func() *Conn
	release chan struct{}
}

func (h wedgingHost) Caps() HostCaps { return HostCaps{ElicitForm: true} }

func (h wedgingHost) Elicit(context.Context, string, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.conn().post(func(*connState) { <-h.release })
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"name": "Ada", "colour": "blue"}}}, nil
}

// An express call's answer does not pass the actor, so the input round it
// waited on must be on record by the time the server can answer: here the
// actor is wedged from the moment the form is answered until the call has
// returned, and the call still reports its round.
func TestExpressCallKeepsItsRoundWhileTheActorIsBusy(t *testing.T) {
	var conn atomic.Pointer[Conn]
	host := wedgingHost{conn: func() *Conn { return conn.Load() }, release: make(chan struct{})}
	reg := NewRegistry(Options{Host: host})
	defer reg.Close()
	returned := make(chan struct{})
	defer close(returned)
	go func() {
		// Should the call wait for the actor after all (the failure this
		// test looks for), unwedge it rather than hang.
		select {
		case <-returned:
		case <-time.After(30 * time.Second):
		}
		close(host.release)
	}()
	ctx := context.Background()
	cfg := demoConfig(t)
	cfg.Era = wire.Era{Mode: wire.EraLegacy} // express calls are of that era
	if _, err := reg.Connect(ctx, "", cfg); err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Resolve("", true)
	conn.Store(c)
	waitExpressReady(t, c) // the demo server's roots request at connect may still be open
	out, err := c.Call(ctx, CallRequest{Kind: KindTool, Name: "ask_name", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-host.release:
		t.Fatal("the call waited for the wedged actor: it did not take the express path")
	default:
	}
	if len(out.Rounds) != 1 || out.Rounds[0].Kind != "elicitation" || out.Rounds[0].Outcome != "accepted" {
		t.Fatalf("the call's rounds: %+v, want the one accepted elicitation", out.Rounds)
	}
}

// waitExpressReady waits until express calls may start on c: live, and no
// client-input round open.
func waitExpressReady(t *testing.T, c *Conn) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		c.fast.mu.Lock()
		ready := c.fast.sess != nil && c.fast.rounds == 0
		c.fast.mu.Unlock()
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection never became ready for express calls")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
