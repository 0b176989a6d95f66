package intercept_test

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

// spill truncates text through a tool result; ids are handed out r1, r2, ….
func spill(t *testing.T, i *intercept.Interceptor, text string) {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}}
	if _, stats, err := i.ToolResult(res, 0); err != nil || stats.ResultsSaved != 1 {
		t.Fatalf("spilling: stats %+v, err %v", stats, err)
	}
}

func TestReadPagesThroughASpilledResult(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 100})
	text := strings.Repeat("ä", 100) + strings.Repeat("b", 100) // offsets are characters
	spill(t, i, strings.Repeat("first ", 50))
	spill(t, i, text)

	for _, tc := range []struct {
		offset, length int
		want           string
	}{
		{50, 100, "[result r2: chars 50–150 of 200 — more available (continue at offset 150)]\n" + strings.Repeat("ä", 50) + strings.Repeat("b", 50)},
		{150, 0, "[result r2: chars 150–200 of 200 — end of result]\n" + strings.Repeat("b", 50)},
		{0, 1000, "[result r2: chars 0–100 of 200 — more available (continue at offset 100)]\n" + strings.Repeat("ä", 100)}, // capped at MaxText
		{199, 5, "[result r2: chars 199–200 of 200 — end of result]\nb"},
	} {
		got, err := i.Read("r2", tc.offset, tc.length)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Read(r2, %d, %d) =\n%q\nwant\n%q", tc.offset, tc.length, got, tc.want)
		}
	}
}

func TestReadErrorsSayWhatToDo(t *testing.T) {
	i := newInterceptor(t, intercept.Options{MaxText: 10})
	if _, err := i.Read("r1", 0, 0); err == nil || !strings.Contains(err.Error(), "no results have been saved") {
		t.Errorf("read before any spill: %v", err)
	}
	spill(t, i, strings.Repeat("x", 200))
	spill(t, i, strings.Repeat("y", 20))
	for _, tc := range []struct {
		id         string
		offset     int
		wantSubstr string
	}{
		{"r9", 0, "known ids are r1, r2"},
		{"../etc/passwd", 0, "known ids are r1, r2"},
		{"r1", 200, "the result has 200 chars"},
		{"r1", 500, "the result has 200 chars"},
		{"r1", -1, "offset -1 is negative"},
	} {
		_, err := i.Read(tc.id, tc.offset, 0)
		if err == nil || !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("Read(%q, %d): error %v, want it to mention %q", tc.id, tc.offset, err, tc.wantSubstr)
		}
	}
}

func TestResultsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	before := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	spill(t, before, strings.Repeat("a", 30))

	after := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	got, err := after.Read("r1", 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[result r1: chars 20–30 of 30 — end of result]\naaaaaaaaaa"; got != want {
		t.Errorf("Read after restart = %q, want %q", got, want)
	}
	// The new session must not reuse r1 and overwrite the old file.
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(strings.Repeat("b", 30))}}
	out, _, err := after.ToolResult(res, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(t, out.Content[0]), `id="r2"`) {
		t.Errorf("new session reused an id: %q", textOf(t, out.Content[0]))
	}
	if got, _ := after.Read("r1", 0, 0); !strings.HasSuffix(got, strings.Repeat("a", 10)) {
		t.Errorf("old result r1 was overwritten: %q", got)
	}
}
