package demoserver

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools that ask the client something back: elicitation, sampling, roots.

const askNameMessage = "What should the demo call you? Pick a name and a colour."

func (d *demo) askNameTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("ask_name",
			mcp.WithDescription("Asks the user (elicitation) for a name and a colour, and reports the answer."),
			mcp.WithString("label", mcp.Description("Added to the question in brackets, so that a host asked several questions at once can tell them apart.")),
		),
		Handler: d.handleAskName,
	}
}

func askNameParams(label string) mcp.ElicitationParams {
	message := askNameMessage
	if label != "" {
		message += " [" + label + "]"
	}
	return mcp.ElicitationParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{
					"type": "string", "title": "Name",
					"description": "What the demo should call you.", "default": "friend",
				},
				"colour": map[string]any{
					"type": "string", "title": "Colour",
					"enum": []string{"red", "green", "blue"}, "default": "blue",
				},
			},
			"required": []string{"name", "colour"},
		},
	}
}

func (d *demo) handleAskName(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if clientCapabilities(ctx).Elicitation == nil {
		return notDeclared("elicitation"), nil
	}
	params := askNameParams(req.GetString("label", ""))
	answer, pending, err := ask(ctx, req, server.ElicitationResponse,
		func(b *server.InputRequestBuilder) { b.Elicit(askKey, params) },
		func() (*mcp.ElicitationResult, error) {
			return d.srv.RequestElicitation(ctx, mcp.ElicitationRequest{
				Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
				Params:  params,
			})
		})
	switch {
	case err != nil:
		return mcp.NewToolResultErrorf("elicitation failed: %v", err), nil
	case pending != nil:
		return pending, nil
	}
	return mcp.NewToolResultText(describeElicitation(answer)), nil
}

// describeElicitation renders an answer as "accepted: name=Ada colour=red",
// "declined" or "cancelled".
func describeElicitation(answer *mcp.ElicitationResult) string {
	switch answer.Action {
	case mcp.ElicitationResponseActionAccept:
		content, _ := answer.Content.(map[string]any)
		return "accepted: " + formatFields(content)
	case mcp.ElicitationResponseActionDecline:
		return "declined"
	case mcp.ElicitationResponseActionCancel:
		return "cancelled"
	}
	return fmt.Sprintf("unknown action %q", answer.Action)
}

// formatFields prints name and colour first (the fields we asked for), then
// anything else the client sent, sorted, as key=value pairs.
func formatFields(content map[string]any) string {
	keys := make([]string, 0, len(content))
	for k := range content {
		if k != "name" && k != "colour" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	keys = append([]string{"name", "colour"}, keys...)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		if v, ok := content[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if len(parts) == 0 {
		return "(no content)"
	}
	return strings.Join(parts, " ")
}

func (d *demo) askLLMTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("ask_llm",
			mcp.WithDescription("Asks the client's model (sampling) to answer the prompt, and returns its text."),
			mcp.WithString("prompt", mcp.Required(), mcp.Description("What to ask the model.")),
		),
		Handler: d.handleAskLLM,
	}
}

func (d *demo) handleAskLLM(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	prompt, err := req.RequireString("prompt")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if clientCapabilities(ctx).Sampling == nil {
		return notDeclared("sampling"), nil
	}
	params := mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(prompt)}},
		MaxTokens: 500,
	}
	answer, pending, err := ask(ctx, req, server.SamplingResponse,
		func(b *server.InputRequestBuilder) { b.Sample(askKey, params) },
		func() (*mcp.CreateMessageResult, error) {
			return d.srv.RequestSampling(ctx, mcp.CreateMessageRequest{
				Request:             mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)},
				CreateMessageParams: params,
			})
		})
	switch {
	case err != nil:
		return mcp.NewToolResultErrorf("sampling was refused: %v", err), nil
	case pending != nil:
		return pending, nil
	}
	return mcp.NewToolResultText(samplingText(answer.Content)), nil
}

// samplingText extracts the text of a model's answer, whichever shape the
// content arrived in (typed by mcp-go's stdio reader, raw JSON from a
// 2026-07-28 retry, or a list of blocks).
func samplingText(content any) string {
	if parsed, err := mcp.ParseSamplingContent(content); err == nil {
		content = parsed
	}
	switch c := content.(type) {
	case mcp.TextContent:
		return c.Text
	case *mcp.TextContent:
		return c.Text
	case []mcp.Content:
		texts := make([]string, 0, len(c))
		for _, block := range c {
			texts = append(texts, samplingText(block))
		}
		return strings.Join(texts, "\n")
	}
	return fmt.Sprintf("(non-text answer: %T)", content)
}

func (d *demo) listRootsTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("list_roots",
			mcp.WithDescription("Asks the client for its roots (roots/list) and lists their URIs, one per line."),
		),
		Handler: d.handleListRoots,
	}
}

func (d *demo) handleListRoots(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if clientCapabilities(ctx).Roots == nil {
		return notDeclared("roots"), nil
	}
	answer, pending, err := ask(ctx, req, server.RootsResponse,
		func(b *server.InputRequestBuilder) { b.Roots(askKey) },
		func() (*mcp.ListRootsResult, error) {
			return d.srv.RequestRoots(ctx, mcp.ListRootsRequest{
				Request: mcp.Request{Method: string(mcp.MethodListRoots)},
			})
		})
	switch {
	case err != nil:
		return mcp.NewToolResultErrorf("roots/list failed: %v", err), nil
	case pending != nil:
		return pending, nil
	case len(answer.Roots) == 0:
		return mcp.NewToolResultText("no roots"), nil
	}
	uris := make([]string, 0, len(answer.Roots))
	for _, root := range answer.Roots {
		uris = append(uris, root.URI)
	}
	return mcp.NewToolResultText(strings.Join(uris, "\n")), nil
}
