package safesocket

import (
	"fmt"
	"os"
)

// noFollow: Windows has no O_NOFOLLOW; the per-user temp directory is
// already private to its user.
const noFollow = 0

func privateDir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("create the session directory %s: %w", d, err)
	}
	return nil
}
