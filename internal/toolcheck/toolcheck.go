package toolcheck

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/didyoumean"
)

// UnknownToolError is a call of a tool the server does not list.
type UnknownToolError struct {
	Name       string
	Suggestion string
	Names      []string
}

func (e *UnknownToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tool %q not found.", e.Name)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " Did you mean %q?", e.Suggestion)
	}
	if len(e.Names) == 0 {
		b.WriteString(" The server lists no tools.")
	} else {
		fmt.Fprintf(&b, " Available tools: %s", strings.Join(e.Names, ", "))
	}
	return b.String()
}

// MissingArgsError is a call without some required arguments.
type MissingArgsError struct {
	Name     string
	Required []string
	Missing  []string
	Received map[string]any
}

func (e *MissingArgsError) Error() string {
	got, _ := json.Marshal(e.Received)
	if e.Received == nil {
		got = []byte("{}")
	}
	return fmt.Sprintf("Tool %q requires: %s. Received: %s (missing: %s)",
		e.Name, strings.Join(e.Required, ", "), got, strings.Join(e.Missing, ", "))
}

// Find returns the tool called name, or an UnknownToolError.
func Find(tools []mcp.Tool, name string) (*mcp.Tool, error) {
	names := make([]string, 0, len(tools))
	for i := range tools {
		if tools[i].Name == name {
			return &tools[i], nil
		}
		names = append(names, tools[i].Name)
	}
	sort.Strings(names)
	return nil, &UnknownToolError{Name: name, Suggestion: didyoumean.Closest(name, names), Names: names}
}

// Check finds the tool and verifies that every required argument is there.
func Check(tools []mcp.Tool, name string, args map[string]any) (*mcp.Tool, error) {
	t, err := Find(tools, name)
	if err != nil {
		return nil, err
	}
	required := Required(*t)
	var missing []string
	for _, r := range required {
		if _, ok := args[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return t, &MissingArgsError{Name: name, Required: required, Missing: missing, Received: args}
	}
	return t, nil
}

// Required lists a tool's required arguments, from whichever schema form
// the server sent.
func Required(t mcp.Tool) []string {
	if len(t.RawInputSchema) > 0 {
		var s struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(t.RawInputSchema, &s) == nil {
			return s.Required
		}
	}
	return t.InputSchema.Required
}

// CheckRaw checks that args, a JSON object as the caller wrote it, holds
// every argument in required; the error names the missing ones and shows
// what was received, as it was written.
func CheckRaw(name string, required []string, args json.RawMessage) error {
	var got map[string]json.RawMessage
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &got); err != nil {
			return fmt.Errorf("the arguments of %q are not a JSON object: %w", name, err)
		}
	}
	var missing []string
	for _, r := range required {
		if _, ok := got[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	received := map[string]any{}
	for k, v := range got {
		received[k] = v
	}
	return &MissingArgsError{Name: name, Required: required, Missing: missing, Received: received}
}
