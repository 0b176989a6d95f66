package intercept_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

// A 20 MB result must be written out without being copied in memory: the
// allocations for spilling it should be about the size of the head kept.
func TestHugeTextIsNotCopied(t *testing.T) {
	i := newInterceptor(t, intercept.Options{})
	text := strings.Repeat("twenty megabytes of log output. ", 20<<20/32)
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, stats, err := i.ToolResult(res, 0)
	runtime.ReadMemStats(&after)
	if err != nil || stats.ResultsSaved != 1 {
		t.Fatalf("spill failed: %+v %v", stats, err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 2<<20 {
		t.Errorf("spilling 20 MB allocated %d bytes; the text was copied", allocated)
	}

	runtime.ReadMemStats(&before)
	page, err := i.Read("r1", 10<<20, 0)
	runtime.ReadMemStats(&after)
	if err != nil || !strings.HasPrefix(page, "[result r1: chars 10485760–10535760 of 20971520 — more available") {
		t.Fatalf("Read = %.100q, %v", page, err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 2<<20 {
		t.Errorf("reading one page of 20 MB allocated %d bytes; the file was loaded whole", allocated)
	}
}
