package safesocket

import (
	"os"
	"path/filepath"
)

// Dir returns the owner-only directory for run-mcp's sessions,
// <tmp>/run-mcp-<user>/sessions (the user: the uid on Unix, the SID on
// Windows), creating each level for this user alone. A level that is a
// symbolic link, belongs to another user or that others can write is
// refused with what was found and what to do; it is never chmodded or
// followed (another user may have planted it).
func Dir() (string, error) {
	user, err := userTag()
	if err != nil {
		return "", err
	}
	top := filepath.Join(os.TempDir(), "run-mcp-"+user)
	dir := filepath.Join(top, "sessions")
	for _, d := range []string{top, dir} {
		if err := privateDir(d); err != nil {
			return "", err
		}
	}
	return dir, nil
}
