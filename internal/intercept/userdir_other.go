//go:build !windows

package intercept

import (
	"os"
	"strconv"
)

// userTag names this user's directory under the temp directory: the uid.
func userTag() string { return strconv.Itoa(os.Getuid()) }

// platformPrivate leaves d to ensurePrivate's mode and owner checks.
func platformPrivate(string) (bool, error) { return false, nil }
