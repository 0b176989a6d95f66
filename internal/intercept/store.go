package intercept

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// resultName matches the spill files this package writes; the capture is the
// numeric part of the id.
var resultName = lazyRegexp(`^result_r([1-9][0-9]*)\.txt$`)

// maxCreateTries bounds how many names we try when another process sharing
// the directory has already taken the one we picked.
const maxCreateTries = 100

// highestResultID finds the largest N among result_r<N>.txt in dir.
func highestResultID(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("listing output directory %s to continue result ids: %w", dir, err)
	}
	highest := 0
	for _, e := range entries {
		m := resultName().FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(m[1]); err == nil && n > highest {
			highest = n
		}
	}
	return highest, nil
}

// nextID is the next result id: on the first, after the highest already in
// the directory.
func (i *Interceptor) nextID() (string, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.listed {
		last, err := highestResultID(i.dir)
		if err != nil {
			return "", err
		}
		i.lastID, i.listed = max(i.lastID, last), true
	}
	i.lastID++
	if i.firstID == 0 {
		i.firstID = i.lastID
	}
	return "r" + strconv.Itoa(i.lastID), nil
}

func (i *Interceptor) nextSeq() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.seq++
	return i.seq
}

// createResult opens a fresh result_<id>.txt, skipping ids another process
// already used in a shared directory.
func (i *Interceptor) createResult() (id string, f *os.File, err error) {
	for range maxCreateTries {
		if id, err = i.nextID(); err != nil {
			return "", nil, err
		}
		f, err = i.createExclusive("result_" + id + ".txt")
		if !errors.Is(err, fs.ErrExist) {
			return id, f, err
		}
	}
	return "", nil, fmt.Errorf("creating a result file in %s: %w; too many ids already taken, run Prune or choose another directory", i.dir, err)
}

// createMedia opens a fresh <prefix>_<unixms>_<n>.<ext>.
func (i *Interceptor) createMedia(prefix, ext string) (*os.File, error) {
	var err error
	for range maxCreateTries {
		name := fmt.Sprintf("%s_%d_%d.%s", prefix, time.Now().UnixMilli(), i.nextSeq(), ext)
		var f *os.File
		f, err = i.createExclusive(name)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("creating a %s file in %s: %w; too many names already taken", prefix, i.dir, err)
}

// createExclusive never reuses an existing file or follows a link planted
// under the name, so two run-mcp processes sharing a directory cannot
// overwrite each other's output and no one can redirect ours.
func (i *Interceptor) createExclusive(name string) (*os.File, error) {
	// Recreate (and re-check) the directory in case a temp cleaner removed
	// it since New.
	if err := ensureDir(i.dir, i.strict); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(i.dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("creating %s in %s: %w; check free space and permissions", name, i.dir, err)
	}
	return f, err
}

// finish closes f and removes it when writing failed, so a half-written file
// is never mistaken for a saved result. It returns the file as written, for
// Read to recognise it later.
func finish(f *os.File, writeErr error) (fs.FileInfo, error) {
	var info fs.FileInfo
	if writeErr == nil {
		info, writeErr = f.Stat()
	}
	closeErr := f.Close()
	err := errors.Join(writeErr, closeErr)
	if err != nil {
		_ = os.Remove(f.Name())
		return nil, fmt.Errorf("writing %s: %w; check free space in the output directory", f.Name(), err)
	}
	return info, nil
}
