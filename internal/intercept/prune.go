package intercept

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ownFile matches exactly the names this package creates, so Prune can run
// on a shared directory such as /tmp without touching anything else.
// Every prefix a mediaKind names is here (a test holds the two together).
var ownFile = lazyRegexp(`^((img|audio|media|data)_[0-9]+_[0-9]+\.[a-z0-9]+|result_r[1-9][0-9]*\.txt)$`)

// Prune deletes our files in dir last modified before now-olderThan (use
// PruneAge for the standard 7 days) and reports how many it removed. Only
// regular files named like img_*, audio_*, media_* and result_* as this
// package names them are considered (data_* too: base64 text that
// decodes to neither image nor audio). A missing dir is not an error. It keeps
// going past files it cannot remove and returns those errors joined.
func Prune(dir string, olderThan time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("listing %s to prune old run-mcp files: %w", dir, err)
	}
	cutoff := now.Add(-olderThan)
	removed := 0
	var errs []error
	for _, e := range entries {
		ok, err := pruneOne(dir, e, cutoff)
		if ok {
			removed++
		}
		errs = append(errs, err)
	}
	return removed, errors.Join(errs...)
}

func pruneOne(dir string, e fs.DirEntry, cutoff time.Time) (bool, error) {
	if !e.Type().IsRegular() || !ownFile().MatchString(e.Name()) {
		return false, nil
	}
	info, err := e.Info()
	if errors.Is(err, fs.ErrNotExist) { // removed by someone else meanwhile
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("checking age of %s: %w", e.Name(), err)
	}
	if _, foreign := foreignOwner(info); foreign || !info.ModTime().Before(cutoff) {
		return false, nil // another user's file in a shared directory is theirs to keep
	}
	err = os.Remove(filepath.Join(dir, e.Name()))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("removing old file %s: %w; check the directory's permissions", e.Name(), err)
	}
	return true, nil
}
