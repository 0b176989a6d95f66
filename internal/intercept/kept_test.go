package intercept_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

// resultFiles lists the result files in dir, sorted.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, n := range dirNames(t, dir) {
		if strings.HasPrefix(n, "result_") {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// An agent server lives for days: past the bound, the oldest results are
// forgotten and their files deleted, and reading one says so and what to
// do instead of reading as an id never given.
func TestOnlyTheMostRecentResultsAreKept(t *testing.T) {
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10, KeepResults: 3})
	for range 5 {
		spill(t, i, strings.Repeat("x", 30))
	}
	if got, want := resultFiles(t, dir), []string{"result_r3.txt", "result_r4.txt", "result_r5.txt"}; !slices.Equal(got, want) {
		t.Errorf("files after five results with room for three: %v, want %v", got, want)
	}
	_, err := i.Read("r1", 0, 0)
	if err == nil {
		t.Fatal("r1 was read after it was deleted")
	}
	for _, want := range []string{`Unknown result id "r1"`, "no longer keeps it", "3 most recent", "Call the tool again", "the ids kept now are r3, r4, r5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("reading a forgotten result: %q, want it to say %q", err, want)
		}
	}
	if _, err := i.Read("r9", 0, 0); err == nil || !strings.Contains(err.Error(), "known ids are r3, r4, r5") {
		t.Errorf("an id never given: %v", err)
	}
	if got, err := i.Read("r5", 0, 0); err != nil || !strings.HasPrefix(got, "[result r5: chars 0–10 of 30") {
		t.Errorf("the newest result: %q, %v", got, err)
	}
}

// The bytes bound keeps a few huge results from filling the disk; the
// newest is kept even when it alone is over it.
func TestResultsAreKeptWithinTheirBytes(t *testing.T) {
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10, KeepResultBytes: 250})
	for range 3 {
		spill(t, i, strings.Repeat("x", 100))
	}
	if got, want := resultFiles(t, dir), []string{"result_r2.txt", "result_r3.txt"}; !slices.Equal(got, want) {
		t.Errorf("files after three results of 100 bytes with room for 250: %v, want %v", got, want)
	}
	spill(t, i, strings.Repeat("y", 1000))
	if got, want := resultFiles(t, dir), []string{"result_r4.txt"}; !slices.Equal(got, want) {
		t.Errorf("files after a result over the bound alone: %v, want %v", got, want)
	}
	if _, err := i.Read("r4", 0, 0); err != nil {
		t.Errorf("the newest result: %v", err)
	}
}

// Results an earlier run-mcp saved are kept apart once read: reading them
// never pushes out a newer result of this one, and their files are not
// this one's to delete.
func TestEarlierResultsAreKeptApart(t *testing.T) {
	dir := t.TempDir()
	before := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	for range 3 {
		spill(t, before, strings.Repeat("a", 30))
	}
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10, KeepResults: 2})
	spill(t, i, strings.Repeat("b", 30))
	for _, id := range []string{"r1", "r2", "r3", "r1"} {
		if got, err := i.Read(id, 20, 0); err != nil || got != "[result "+id+": chars 20–30 of 30 — end of result]\naaaaaaaaaa" {
			t.Errorf("reading the earlier %s: %q, %v", id, got, err)
		}
	}
	if got, want := resultFiles(t, dir), []string{"result_r1.txt", "result_r2.txt", "result_r3.txt", "result_r4.txt"}; !slices.Equal(got, want) {
		t.Errorf("files: %v, want %v", got, want)
	}
	if _, err := i.Read("r4", 0, 0); err != nil {
		t.Errorf("this one's result after reading earlier ones: %v", err)
	}
}
