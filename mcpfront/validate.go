package mcpfront

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/validate"
)

// validate spawns the command on a registry of its own and reports what a
// strict client would reject (package validate).
func (f *front) validate(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	cfg, err := f.targetConfig(a)
	if err != nil {
		return nil, err
	}
	r := validate.Run(ctx, cfg, mcp.Implementation{Name: "run-mcp", Version: f.opts.Version})
	return textResult(r.Text(getBool(a, "deep"))), nil
}
