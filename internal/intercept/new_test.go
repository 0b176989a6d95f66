package intercept_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestNewCreatesPrivateOutputDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "run-mcp")
	i, err := intercept.New(intercept.Options{OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if i.OutDir() != dir {
		t.Errorf("OutDir = %q, want %q", i.OutDir(), dir)
	}
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Errorf("dir mode = %o, want 700", perm)
	}
}

func TestNewReportsUnusableDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := intercept.New(intercept.Options{OutDir: filepath.Join(file, "sub")}); err == nil {
		t.Error("New accepted a directory under a regular file")
	}
}

func TestDefaults(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if got, want := intercept.DefaultOutDir(), filepath.Join(tmp, fmt.Sprintf("run-mcp-%d", os.Getuid()), "out"); got != want {
		t.Errorf("DefaultOutDir = %q, want %q", got, want)
	}
	if intercept.DefaultMaxText != 50_000 || intercept.DefaultMediaThresholdKB != 0 {
		t.Error("defaults changed")
	}
}

func TestStatsJSONNames(t *testing.T) {
	b, err := json.Marshal(intercept.Stats{Truncated: true, ImagesSaved: 1, AudioSaved: 2, BlobsSaved: 3, ResultsSaved: 4, OriginalSizeBytes: 5, Files: []string{"/f"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"truncated":true,"images_saved":1,"audio_saved":2,"blobs_saved":3,"results_saved":4,"original_size_bytes":5,"files":["/f"]}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
}
