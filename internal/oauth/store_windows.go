package oauth

import (
	"os"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// checkDir makes the token directory owner-only where mode bits say
// nothing: by an owner-only access list, checked for its owner and for
// links, as the session and output directories are. Reading creates
// nothing: a directory that is not there holds no token.
func checkDir(d string, create bool) error {
	if !create {
		if _, err := os.Lstat(d); err != nil {
			return err
		}
	}
	return safesocket.PrivateDir(d, "token directory")
}

// openPrivate opens a token file in the owner-only directory.
func openPrivate(path string) (*os.File, error) { return os.Open(path) }
