package snapshot_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/snapshot"
)

func TestSummary(t *testing.T) {
	l := full(tools("a", "b", "c", "d"))
	if got, want := snapshot.Summary(l), "4 tools, 1 resource, 1 resource template, 1 prompt"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}

	l = full(tools("a"))
	l.Resources = nil // offered but empty
	l.Templates = append(l.Templates, mcp.NewResourceTemplate("db://{table}", "tables"))
	l.Has.Prompts, l.Prompts = false, nil // not offered
	if got, want := snapshot.Summary(l), "1 tool, 0 resources, 2 resource templates"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}

	if got, want := snapshot.Summary(snapshot.Listing{}), "no tools, resources or prompts"; got != want {
		t.Errorf("Summary of nothing = %q, want %q", got, want)
	}
}
