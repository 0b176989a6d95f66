package wire

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// On a 2026-07-28 connection a server-to-client request and a change
// notification outside a listen stream are era-rule transport errors; the
// request is refused, a tagged notification is not an error, and a legacy
// connection accepts both.
func TestTransportRecordsEraRules(t *testing.T) {
	fs := newFakeServer(t)
	asked := 0
	fs.tr.SetRequestHandler(func(context.Context, transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		asked++
		return nil, nil
	})
	fs.tr.SetNotificationHandler(func(mcp.JSONRPCNotification) {})
	fs.tr.SetModern(true)
	fs.say(t, `{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Old style?"}}`)
	line, err := fs.requests.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var reply struct {
		ID    string `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &reply); err != nil || reply.ID != "srv-1" || reply.Error.Code != mcp.METHOD_NOT_FOUND {
		t.Errorf("a legacy-style request on a modern connection must be refused, got %q", line)
	}
	fs.say(t, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	fs.sync(t)
	snap := fs.ev.Snapshot()
	var rules []string
	for _, e := range snap.Errors {
		if IsEraViolation(e) {
			rules = append(rules, e.Message)
		}
	}
	if len(rules) != 2 || !strings.Contains(rules[0], "elicitation/create") || !strings.Contains(rules[1], "unsolicited notifications/tools/list_changed") {
		t.Errorf("era-rule errors = %q; want the request and the untagged list_changed", rules)
	}
	if asked != 0 {
		t.Errorf("the handler answered a request the era forbids")
	}
}

// fakeTransport answers each request with the next scripted response and
// records the protocol version each was sent at.
type fakeTransport struct {
	transport.Interface
	answers  []func(id mcp.RequestId) (*transport.JSONRPCResponse, error)
	versions []string
	methods  []string
}

func (f *fakeTransport) SendRequest(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	f.methods = append(f.methods, req.Method)
	meta, _ := req.Params.(map[string]any)["_meta"].(map[string]any)
	v, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	f.versions = append(f.versions, v)
	if len(f.answers) == 0 {
		return nil, context.DeadlineExceeded
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a(req.ID)
}

func errAnswer(code int, msg string, data any) func(mcp.RequestId) (*transport.JSONRPCResponse, error) {
	return func(id mcp.RequestId) (*transport.JSONRPCResponse, error) {
		return transport.NewJSONRPCErrorResponse(id, code, msg, data), nil
	}
}

func okAnswer(result string) func(mcp.RequestId) (*transport.JSONRPCResponse, error) {
	return func(id mcp.RequestId) (*transport.JSONRPCResponse, error) {
		return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: id, Result: json.RawMessage(result)}, nil
	}
}

func TestNegotiate(t *testing.T) {
	unsupported := errAnswer(mcp.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
		map[string]any{"supported": []string{"2026-07-28"}, "requested": "2026-07-28"})
	discovered := okAnswer(`{"supportedVersions":["2026-07-28"],"capabilities":{}}`)
	notFound := errAnswer(mcp.METHOD_NOT_FOUND, "method not found", nil)
	auto, _ := ParseEra("auto")
	pin, _ := ParseEra("2026-07-28")
	for _, tc := range []struct {
		name    string
		era     Era
		answers []func(mcp.RequestId) (*transport.JSONRPCResponse, error)
		version string // "" legacy
		errHas  string
		probes  int
	}{
		{"auto modern", auto, answers(discovered), "2026-07-28", "", 1},
		{"auto -32022 retried", auto, answers(unsupported, discovered), "2026-07-28", "", 2},
		{"pin -32022 retried", pin, answers(unsupported, discovered), "2026-07-28", "", 2},
		{"auto legacy on -32601", auto, answers(notFound), "", "", 1},
		{"auto legacy on silence", auto, nil, "", "", 1},
		{"auto legacy on a result without versions", auto, answers(okAnswer(`{"protocolVersion":"2025-11-25"}`)), "", "", 1},
		{"pin refuses -32601", pin, answers(notFound), "", "did not fall back to initialize", 1},
		{"pin refuses a server without it", pin, answers(errAnswer(mcp.UNSUPPORTED_PROTOCOL_VERSION, "no",
			map[string]any{"supported": []string{"2025-11-25"}})), "", "it supports [2025-11-25]", 1},
		{"twice refused", auto, answers(unsupported, unsupported), "", "twice", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTransport{answers: tc.answers}
			n, err := Negotiate(context.Background(), f, tc.era, mcp.Implementation{Name: "t"}, mcp.ClientCapabilities{})
			switch {
			case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Errorf("err = %v; want one containing %q", err, tc.errHas)
			case tc.errHas == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tc.errHas == "" && n.Version != tc.version:
				t.Errorf("version = %q; want %q", n.Version, tc.version)
			}
			if len(f.methods) != tc.probes {
				t.Errorf("sent %v; want %d server/discover", f.methods, tc.probes)
			}
			for i, m := range f.methods {
				if m != "server/discover" || f.versions[i] != "2026-07-28" {
					t.Errorf("request %d = %s at %q; want server/discover at 2026-07-28", i, m, f.versions[i])
				}
			}
		})
	}
	legacy, _ := ParseEra("legacy")
	f := &fakeTransport{}
	if n, err := Negotiate(context.Background(), f, legacy, mcp.Implementation{}, mcp.ClientCapabilities{}); err != nil || !n.Legacy() || len(f.methods) != 0 {
		t.Errorf("legacy must send nothing: %+v %v %v", n, err, f.methods)
	}
}

func answers(a ...func(mcp.RequestId) (*transport.JSONRPCResponse, error)) []func(mcp.RequestId) (*transport.JSONRPCResponse, error) {
	return a
}
