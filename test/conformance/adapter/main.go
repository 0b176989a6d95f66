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
	"slices"
	"strings"
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

// argumentsFor builds arguments that satisfy a tool's input schema, for the
// required properties and those that name an x-mcp-header (so the header is
// exercised): each property's default or first enum value, else a value of
// its type chosen from what its description asks for (a non-ASCII string, one
// with leading spaces, …), and null left out. A "schema" object argument
// whose description asks for another tool's inputSchema gets that schema as
// listed (the suite's echo of what the client preserved).
func argumentsFor(schema json.RawMessage, tools []tool) map[string]any {
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
		p := s.Properties[name]
		desc, _ := p["description"].(string)
		if strings.Contains(strings.ToLower(desc), "null") && !slices.Contains(s.Required, name) {
			continue // the scenario checks that an omitted value sends no header
		}
		if p["type"] == "object" && strings.Contains(desc, "inputSchema") {
			if echoed := schemaNamed(desc, tools); echoed != nil {
				args[name] = echoed
				continue
			}
		}
		args[name] = valueFor(p, desc)
	}
	return args
}

// schemaNamed finds the tool a description names and returns its input
// schema as the server sent it.
func schemaNamed(desc string, tools []tool) json.RawMessage {
	for _, t := range tools {
		if strings.Contains(desc, t.Name) {
			return t.InputSchema
		}
	}
	return nil
}

func valueFor(p map[string]any, desc string) any {
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
		return 42
	case "boolean":
		return true
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	case "null":
		return nil
	}
	d := strings.ToLower(desc)
	switch {
	case strings.Contains(d, "non-ascii"):
		return "Zürich 東京"
	case strings.Contains(d, "leading/trailing"), strings.Contains(d, "leading and trailing"):
		return "  padded  "
	case strings.Contains(d, "leading space"):
		return " leading"
	case strings.Contains(d, "trailing space"):
		return "trailing "
	case strings.Contains(d, "internal space"):
		return "us west 2"
	case strings.Contains(d, "empty string"):
		return ""
	case strings.Contains(d, "carriage return"):
		return "line one\r\nline two"
	case strings.Contains(d, "leading tab"):
		return "\tindented"
	case strings.Contains(d, "control char"):
		return "bell\x07here"
	}
	return "test"
}
