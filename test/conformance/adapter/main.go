// Command adapter is the client the official MCP conformance suite runs
// (`conformance client --command "adapter -mode M -bin B" --scenario X`): it
// drives run-mcp against the scenario server, whose URL the suite appends as
// the last argument.
//
//	-mode headless  run-mcp's one-shot subcommands: list-tools, then call
//	                each tool with arguments built from its schema
//	-mode agent     run-mcp as the agent server on stdio under a tiny host
//	                that accepts every elicitation form with its defaults:
//	                connect_to_mcp, list_mcp_primitives, call_mcp_primitive
//
// It exits 0 when every step ran (a tool error is the scenario's business,
// the suite judges what reached its server), 1 when run-mcp itself failed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	mode := flag.String("mode", "headless", "headless or agent")
	bin := flag.String("bin", "run-mcp", "the run-mcp binary")
	protocol := flag.String("protocol", "", "run-mcp's --protocol (default: from MCP_CONFORMANCE_PROTOCOL_VERSION, else auto)")
	flag.Parse()
	if *protocol == "" {
		*protocol = protocolFor(os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"))
	}
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "adapter: no server URL: the conformance suite appends it as the last argument")
		os.Exit(2)
	}
	url := flag.Arg(flag.NArg() - 1)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	var err error
	switch *mode {
	case "headless":
		err = headless(ctx, *bin, *protocol, url)
	case "agent":
		err = agent(ctx, *bin, *protocol, url)
	default:
		err = fmt.Errorf("mode %q is not headless or agent", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		os.Exit(1)
	}
}

// protocolFor maps the revision the suite runs a scenario at to run-mcp's
// --protocol: 2026-07-28 and later are pinned (no handshake), the dated
// revisions before it use the legacy initialize; none given probes (auto).
func protocolFor(revision string) string {
	switch {
	case revision == "":
		return "auto"
	case revision >= "2026-07-28":
		return revision
	}
	return "legacy"
}

// tool is the part of a listed tool the adapter needs.
type tool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// argumentsFor builds arguments that satisfy a tool's input schema: each
// property's default or example, else a plain value of its type, for the
// required properties and those that name an x-mcp-header (so the header is
// exercised).
func argumentsFor(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	want := map[string]bool{}
	for _, r := range s.Required {
		want[r] = true
	}
	for name, p := range s.Properties {
		if _, ok := p["x-mcp-header"]; ok {
			want[name] = true
		}
	}
	for name := range want {
		args[name] = valueFor(s.Properties[name])
	}
	return args
}

func valueFor(p map[string]any) any {
	if d, ok := p["default"]; ok {
		return d
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch p["type"] {
	case "number":
		return 1.5
	case "integer":
		return 1
	case "boolean":
		return true
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	case "null":
		return nil
	}
	return "test"
}
