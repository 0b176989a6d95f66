package intercept

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// openResult opens a result file for reading only if it is what we wrote:
// never through a symbolic link, a regular file owned by us, and, for a
// result this Interceptor spilled, the very file (same inode) with the size
// and modification time it had when we closed it. A file from an earlier session must at least be
// ours and writable by no one else. Anything else means someone else could
// write to the output directory and swapped the file, and its text must not
// reach the agent as if the server had sent it.
func (i *Interceptor) openResult(id string, entry spilled) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(entry.path, os.O_RDONLY|oReadSafe, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s no longer exists (it may have been pruned); call the tool again", entry.path)
	}
	if err != nil {
		if info, lerr := os.Lstat(entry.path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, nil, i.swapped(id, entry.path, "a symbolic link")
		}
		return nil, nil, fmt.Errorf("opening %s: %w", entry.path, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("checking %s: %w", entry.path, err)
	}
	if problem := resultProblem(entry, info); problem != "" {
		f.Close()
		return nil, nil, i.swapped(id, entry.path, problem)
	}
	return f, info, nil
}

// resultProblem says why info is not the file we wrote, or "".
func resultProblem(entry spilled, info fs.FileInfo) string {
	if !info.Mode().IsRegular() {
		return describeMode(info)
	}
	if owner, ok := foreignOwner(info); ok {
		return "a file owned by " + owner
	}
	if entry.written == nil {
		if info.Mode().Perm()&0o022 != 0 {
			return fmt.Sprintf("a file others can write to (mode %04o)", info.Mode().Perm())
		}
		return ""
	}
	if !os.SameFile(entry.written, info) {
		return "a different file from the one run-mcp wrote"
	}
	if info.Size() != entry.written.Size() || !info.ModTime().Equal(entry.written.ModTime()) {
		return fmt.Sprintf("the file run-mcp wrote, but changed since (%d bytes then, %d now)", entry.written.Size(), info.Size())
	}
	return ""
}

func (i *Interceptor) swapped(id, path, found string) error {
	return fmt.Errorf("refusing to read result %s: %s is now %s, so someone else has written to the output directory %s; "+
		"its contents are not the server's. Call the tool again with --out-dir set to a directory only you can write", id, path, found, i.dir)
}
