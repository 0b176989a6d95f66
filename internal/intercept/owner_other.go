//go:build !unix

package intercept

import "io/fs"

// oNoFollow is 0 where open has no such flag; the per-user temp directory
// (Windows gives each user their own) is what protects these files there.
const oNoFollow = 0

// oReadSafe adds nothing to a read-only open on this platform.
const oReadSafe = 0

// foreignOwner cannot tell file owners apart on this platform.
func foreignOwner(fs.FileInfo) (string, bool) { return "", false }
