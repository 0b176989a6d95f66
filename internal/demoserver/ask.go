package demoserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// askKey names our single input request in a 2026-07-28 round trip; the
// client echoes it back as the key of its answer.
const askKey = "ask"

// ask gets one answer from the client in whichever era the call uses.
//
// 2026-07-28 has no server-initiated requests: the first call returns an
// input_required result (the second return value, to be returned as is) and
// the client retries the call with the answer in inputResponses, which
// answerOf extracts.
//
// In the legacy era mcp-go could bridge that same input_required result to a
// real server-initiated request, but a refusal would then become a JSON-RPC
// error for the whole call. We send the request ourselves (legacy) so a
// refusal comes back as an error we can turn into a readable tool result.
func ask[T any](
	ctx context.Context,
	req mcp.CallToolRequest,
	answerOf func(mcp.InputResponses, string) *T,
	request func(*server.InputRequestBuilder),
	legacy func() (*T, error),
) (*T, *mcp.CallToolResult, error) {
	if !server.IsModernRequest(ctx) {
		answer, err := legacy()
		return answer, nil, err
	}
	if answer := answerOf(req.Params.InputResponses, askKey); answer != nil {
		return answer, nil, nil
	}
	builder := server.NewInputRequestBuilder("")
	request(builder)
	return nil, builder.ToolResult(), nil
}

// clientCapabilities returns what the client declared: per request in
// 2026-07-28, once at initialize before that.
func clientCapabilities(ctx context.Context) mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern && info.ClientCapabilities != nil {
		return *info.ClientCapabilities
	}
	if session, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return session.GetClientCapabilities()
	}
	return mcp.ClientCapabilities{}
}

// notDeclared is the tool error for a client that lacks a capability; asking
// anyway would only earn a protocol error.
func notDeclared(capability string) *mcp.CallToolResult {
	return mcp.NewToolResultErrorf("the client did not declare the %s capability, so the demo cannot ask it", capability)
}
