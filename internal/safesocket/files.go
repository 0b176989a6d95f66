package safesocket

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// OpenPrivate opens a file in a private directory, 0600, never through a
// symbolic link, and refuses anything but a regular file.
func OpenPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|noFollow, 0o600)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("refusing %s: it is not a regular file", path)
	}
	return f, nil
}

// ReadPrivate reads at most limit bytes of a file opened with OpenPrivate.
func ReadPrivate(path string, limit int64) ([]byte, error) {
	f, err := OpenPrivate(path, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return b, nil
}

// WritePrivate replaces path atomically with data: a fresh 0600 temp file
// (created exclusively, so never through a link) renamed over it.
func WritePrivate(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
	}
	return werr
}
