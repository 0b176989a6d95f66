package mcpfront

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"

	"github.com/run-mcp/run-mcp/internal/validate"
)

// validate spawns the command on a registry of its own and reports what a
// strict client would reject (package validate).
func (f *front) validate(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	cfg, err := f.targetConfig(a)
	if err != nil {
		return nil, err
	}
	cfg.Listing = false // validate lists raw itself
	r := validate.Run(ctx, cfg, actors.Options{ClientInfo: mcp.Implementation{Name: "run-mcp", Version: f.opts.Version},
		RequestTimeout: f.opts.RequestTimeout, Words: agentWords})
	return textResult(r.Text(getBool(a, "deep"))), nil
}
