package demoserver

import "github.com/mark3labs/mcp-go/mcp"

// hints are what a tool's annotations say about it. mcp-go's NewTool starts
// every tool as destructive, not read-only, not idempotent and open-world;
// a client decides what to ask its user before calling from these, and an
// agent testing its own annotations compares against the demo's, so each
// demo tool states all four as they are true of it.
type hints struct {
	readOnly    bool // it changes nothing outside the call's own answer and messages
	destructive bool // when it does change something, it may destroy or end it
	idempotent  bool // calling it again with the same arguments changes nothing more
	openWorld   bool // it reaches beyond the server (a person, a model)
}

// annotated sets all four hints, replacing mcp-go's defaults.
func annotated(h hints) mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.Annotations.ReadOnlyHint = mcp.ToBoolPtr(h.readOnly)
		t.Annotations.DestructiveHint = mcp.ToBoolPtr(h.destructive)
		t.Annotations.IdempotentHint = mcp.ToBoolPtr(h.idempotent)
		t.Annotations.OpenWorldHint = mcp.ToBoolPtr(h.openWorld)
	}
}

// The hints the demo's tools share.
var (
	// pure answers from its arguments alone: echo, add, big_text, env.
	pure = hints{readOnly: true, idempotent: true}
	// emits writes to a stream or the client's log and changes nothing
	// else, but each call writes again: log, noise, stderr.
	emits = hints{readOnly: true}
)
