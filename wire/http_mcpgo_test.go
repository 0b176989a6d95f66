package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// A real third-party server, mcp-go's Streamable HTTP server, driven as the
// connection's actor will drive the channel: the legacy handshake with its
// session, a tool call during which the server logs and asks the client a
// question on the call's stream, the owner's answer posted back, and Close
// ending the session on the server.
func TestHTTPAgainstMCPGoStreamableServer(t *testing.T) {
	unregistered := make(chan struct{})
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { close(unregistered) })
	s := server.NewMCPServer("t", "1", server.WithHooks(hooks), server.WithLogging())
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = s.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "error", "data": "asking"})
		res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: "name?", RequestedSchema: map[string]any{"type": "object"}}})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(fmt.Sprintf("answer %v", res.Content)), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))))
	t.Cleanup(srv.Close)

	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL + "/mcp"})
	const v = mcp.ProtocolVersion20251125
	o.call(1, "initialize", `{"protocolVersion":"`+v+`","capabilities":{"elicitation":{"form":{}}},"clientInfo":{"name":"run-mcp","version":"test"}}`, "")
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(o.message("1").Result, &init); err != nil || init.ProtocolVersion != v {
		t.Fatalf("initialize: %v %+v", err, init)
	}
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Method: "notifications/initialized", Protocol: v})
	o.ch.Listen()
	o.call(2, "tools/call", `{"name":"ask","arguments":{}}`, v)

	var ask Message
	o.await("the server's question", func(in Inbound) bool {
		for _, m := range in.Messages {
			if m.IsRequest() && m.Method == "elicitation/create" {
				ask = m
				return true
			}
		}
		return false
	})
	if ask.Stream != "2" {
		t.Errorf("the question came on stream %q, not the call's", ask.Stream)
	}
	o.notification("notifications/message") // on the call's stream or the GET stream: the server's choice
	o.send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"name":"Ada"}}}`), Protocol: v})
	res := o.message("2")
	if res.Stream != "2" || !strings.Contains(string(res.Result), "answer map[name:Ada]") {
		t.Fatalf("the call's result %s on stream %q", res.Result, res.Stream)
	}
	for _, in := range o.all() {
		if len(in.Errors) > 0 || len(in.Failed) > 0 {
			t.Fatalf("trouble:\n%s", o.dump())
		}
	}
	o.ch.Close()
	waitClosed(t, "the server to end the session", unregistered)
	if end := o.end(); end.Err != nil {
		t.Errorf("closed with %v", end.Err)
	}
}
