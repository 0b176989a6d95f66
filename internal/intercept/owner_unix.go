//go:build unix

package intercept

import (
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// oReadSafe also keeps an open from blocking on a named pipe planted under
// a result's name; it changes nothing for the regular files we read.
const oReadSafe = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// foreignOwner reports the owner of info when it is not this user.
func foreignOwner(info fs.FileInfo) (string, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	if int(st.Uid) == os.Getuid() {
		return "", false
	}
	return "uid " + strconv.FormatUint(uint64(st.Uid), 10), true
}
