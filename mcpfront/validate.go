package mcpfront

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/snapshot"
)

// validate spawns the command on a registry of its own (so it never touches
// the agent's connections), connects, lists, and reports what a strict
// client would reject, with the stderr and exit of a server that dies.
func (f *front) validate(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	cfg, err := f.targetConfig(a)
	if err != nil {
		return nil, err
	}
	reg := actors.NewRegistry(actors.Options{MaxConnections: 1, ClientInfo: mcp.Implementation{Name: "run-mcp", Version: f.opts.Version}})
	defer reg.Close()
	info, err := reg.Connect(ctx, "validate", cfg)
	if err != nil {
		return textResult("Validation Result: FAIL\n" + err.Error()), nil
	}
	c, err := reg.Resolve("validate", true)
	if err != nil {
		return nil, err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return nil, err
	}
	result, problems := "SUCCESS", []string{}
	if n := st.Evidence; n.NoiseTotal > 0 || n.ErrorsTotal > 0 {
		result = "FAIL"
		problems = append(problems, fmt.Sprintf("stdout_protocol_channel: %d non-JSON-RPC line(s) on stdout, %d transport error(s)", n.NoiseTotal, n.ErrorsTotal))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Validation Result: %s\n", result)
	fmt.Fprintf(&b, "Server: %s %s\n", info.ServerInfo.Name, info.ServerInfo.Version)
	fmt.Fprintf(&b, "Command: %s\nProtocol: %s (%s)\nCapabilities: %s\nOffers: %s\n", info.Target, info.ProtocolVersion, info.Era,
		capList(info.Capabilities), snapshot.Summary(info.Listing))
	for _, p := range problems {
		b.WriteString("[FAIL] " + p + "\n")
	}
	b.WriteString(noiseSection(st.Evidence))
	if ex, ok, _ := c.Stderr(ctx, 0, 0); ok {
		fmt.Fprintf(&b, "\n--- Target server stderr (%d line(s)) ---\n", ex.Total)
		for _, l := range ex.Render(true) {
			b.WriteString(l + "\n")
		}
	}
	if getBool(a, "deep") {
		b.WriteString("\nNote: the deep checks (schemas, capabilities served vs advertised, crash signatures) are not in this build yet; this report covers the handshake, the listing and the stdout channel.\n")
	}
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}
