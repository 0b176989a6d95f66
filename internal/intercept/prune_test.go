package intercept_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestPruneRemovesOnlyOurOldFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	old := now.Add(-intercept.PruneAge - time.Hour)
	recent := now.Add(-time.Hour)
	files := map[string]time.Time{
		"img_1700000000000_1.png":    old,
		"audio_1700000000000_2.wav":  old,
		"media_1700000000000_3.pdf":  old,
		"result_r4.txt":              old,
		"data_1700000000000_9.pdf":   old,    // saved by base64 detection
		"img_1700000000000_5.png":    recent, // too young
		"result_r6.txt":              recent,
		"notes.txt":                  old, // not ours
		"img.png":                    old, // not our naming
		"result_final.txt":           old,
		"img_1700000000000_7.png.sh": old,
	}
	for name, mtime := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "img_1700000000000_8.png"), 0o700); err != nil {
		t.Fatal(err)
	}

	removed, err := intercept.Prune(dir, intercept.PruneAge, now)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 5 {
		t.Errorf("removed %d files, want 5", removed)
	}
	left := dirNames(t, dir)
	slices.Sort(left)
	want := []string{"img.png", "img_1700000000000_5.png", "img_1700000000000_7.png.sh", "img_1700000000000_8.png", "notes.txt", "result_final.txt", "result_r6.txt"}
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

func TestPruneMissingDirIsNotAnError(t *testing.T) {
	removed, err := intercept.Prune(filepath.Join(t.TempDir(), "never-created"), intercept.PruneAge, time.Now())
	if err != nil || removed != 0 {
		t.Errorf("Prune on a missing dir = %d, %v", removed, err)
	}
}
