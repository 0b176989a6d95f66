package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// agent runs run-mcp as the agent server under a tiny host: it connects to
// the scenario's URL with connect_to_mcp, lists the tools and calls each
// through call_mcp_primitive. The host declares elicitation and accepts
// every form with the defaults its schema gives, the way a person pressing
// "submit" on an untouched form would.
func agent(ctx context.Context, bin, protocol, url string) error {
	env, cleanup, err := isolate()
	if err != nil {
		return err
	}
	defer cleanup()
	tr := transport.NewStdioWithOptions(bin, env, nil, transport.WithCommandStderrWriter(os.Stderr))
	if err := tr.Start(ctx); err != nil {
		return fmt.Errorf("start the agent server %s: %w", bin, err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION),
		client.WithElicitationHandler(acceptDefaults{}))
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start the host: %w", err)
	}
	// The host declares forms and URLs: run-mcp relays an authorization to
	// it as a URL-mode elicitation, which a person opens in a browser.
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "conformance-host", Version: "1"}, Capabilities: caps}}); err != nil {
		return fmt.Errorf("initialize the agent server: %w", err)
	}
	if _, err := callAgent(ctx, c, "connect_to_mcp", map[string]any{"command": url, "protocol": protocol, "oauth": authArgs()}); err != nil {
		return err
	}
	listed, err := callAgent(ctx, c, "list_mcp_primitives", map[string]any{"type": []string{"tools"}})
	if err != nil {
		return err
	}
	tools, err := toolsOf(listed)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if _, err := callAgent(ctx, c, "call_mcp_primitive", map[string]any{"type": "tool", "name": t.Name,
			"arguments": argumentsFor(t.InputSchema, tools)}); err != nil {
			fmt.Fprintf(os.Stderr, "adapter: call %s: %v\n", t.Name, err)
		}
	}
	_, err = callAgent(ctx, c, "disconnect_from_mcp", map[string]any{})
	return err
}

// callAgent calls one of run-mcp's tools and returns its text; a tool error
// is an error.
func callAgent(ctx context.Context, c *client.Client, name string, args map[string]any) (string, error) {
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteString("\n")
		}
	}
	fmt.Printf("== %s\n%s", name, b.String())
	if res.IsError {
		return b.String(), fmt.Errorf("%s answered an error: %s", name, b.String())
	}
	return b.String(), nil
}

// toolsOf reads the tools out of list_mcp_primitives' text: a line
// "--- Tools ---" followed by the JSON array of the tools as the server sent
// them.
func toolsOf(text string) ([]tool, error) {
	i := strings.Index(text, "--- Tools ---")
	if i < 0 {
		return nil, nil
	}
	j := strings.Index(text[i:], "[")
	if j < 0 {
		return nil, fmt.Errorf("list_mcp_primitives answered no JSON array of tools: %q", text)
	}
	var tools []tool
	if err := json.NewDecoder(strings.NewReader(text[i+j:])).Decode(&tools); err != nil {
		return nil, fmt.Errorf("list_mcp_primitives answered tools that are not JSON: %w", err)
	}
	return tools, nil
}

// acceptDefaults accepts a form with each field's default value, and opens
// the URL of a URL-mode elicitation before accepting it.
type acceptDefaults struct{}

func (acceptDefaults) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if req.Params.Mode == "url" {
		if err := openInBrowser(ctx, req.Params.URL); err != nil {
			fmt.Fprintln(os.Stderr, "adapter:", err)
			return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
		}
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	b, _ := json.Marshal(req.Params.RequestedSchema)
	_ = json.Unmarshal(b, &s)
	content := map[string]any{}
	for name, p := range s.Properties {
		if d, ok := p["default"]; ok {
			content[name] = d
		}
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: content}}, nil
}
