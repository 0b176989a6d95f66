package demoserver

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	counterURI   = "demo://counter"
	echoTemplate = "demo://echo/{text}"
)

// addResources registers demo://counter and the demo://echo/{text} template.
func (d *demo) addResources(srv *server.MCPServer) {
	srv.AddResource(
		mcp.NewResource(counterURI, "counter",
			mcp.WithResourceDescription("A number that bump_counter increments; subscribe to hear about it."),
			mcp.WithMIMEType("text/plain"),
		),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: counterURI, MIMEType: "text/plain", Text: strconv.FormatInt(d.counter.Load(), 10),
			}}, nil
		},
	)
	srv.AddResourceTemplate(
		mcp.NewResourceTemplate(echoTemplate, "echo",
			mcp.WithTemplateDescription("Reads back the text in the URI."),
			mcp.WithTemplateMIMEType("text/plain"),
		),
		readEcho,
	)
}

// readEcho answers demo://echo/{text} with the text itself.
func readEcho(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	text := fmt.Sprint(req.Params.Arguments["text"])
	if values, ok := req.Params.Arguments["text"].([]string); ok && len(values) == 1 {
		text = values[0]
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{
		URI: req.Params.URI, MIMEType: "text/plain", Text: text,
	}}, nil
}

// addPrompts registers the greet prompt.
func (d *demo) addPrompts(srv *server.MCPServer) {
	srv.AddPrompt(
		mcp.NewPrompt("greet",
			mcp.WithPromptDescription("Asks the model to say hello to someone."),
			mcp.WithArgument("name", mcp.RequiredArgument(), mcp.ArgumentDescription("Who to greet.")),
		),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name := req.Params.Arguments["name"]
			if name == "" {
				return nil, fmt.Errorf("greet: the name argument is required")
			}
			return mcp.NewGetPromptResult("A greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Say hello to "+name+".")),
			}), nil
		},
	)
}

func (d *demo) bumpCounterTool() server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("bump_counter",
			annotated(hints{}), // it changes the counter, and again each call
			mcp.WithDescription("Increments demo://counter, notifies its subscribers, and returns the new value."),
		),
		Handler: d.handleBump,
	}
}

func (d *demo) handleBump(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	value := d.counter.Add(1)
	for _, u := range d.subs.updates(counterURI) {
		if err := notify(ctx, u.session, mcp.MethodNotificationResourceUpdated, u.params); err != nil {
			d.printf("demo-server: bump_counter: %s not notified: %v\n", counterURI, err)
		}
	}
	return mcp.NewToolResultText(strconv.FormatInt(value, 10)), nil
}
