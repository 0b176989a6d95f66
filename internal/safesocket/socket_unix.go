//go:build !windows

package safesocket

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// maxSocketPath is the room a Unix socket path has (sun_path, with its NUL).
const maxSocketPath = 100

// userTag names this user in the session directory: the uid.
func userTag() (string, error) { return strconv.Itoa(os.Getuid()), nil }

// Path is the socket path for a session name: <dir>/<name>.sock, or a short
// hashed name when that would be too long for a Unix socket.
func Path(dir, name string) string {
	p := filepath.Join(dir, name+".sock")
	if len(p) < maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(name))
	return filepath.Join(dir, "s-"+hex.EncodeToString(sum[:6])+".sock")
}

// Listen listens on path, replacing a stale socket file, and accepts only
// connections from this user. Closing the listener leaves the file: the
// caller removes it (Remove) once it has checked the file is still its own,
// since a later daemon of the same name may have replaced it, and Go's
// default unlink on Close would remove that one's socket.
func Listen(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil && len(path) >= maxSocketPath {
		// The kernel says only "invalid argument" for a path too long.
		return nil, fmt.Errorf("listen on %s: the path is %d bytes, more than a Unix socket's path can hold (about %d), because the temp directory %s is deep. "+
			"Set TMPDIR to a shorter directory (such as /tmp) and run the command again: %w", path, len(path), maxSocketPath, os.TempDir(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict the socket %s: %w", path, err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	return &sameUser{Listener: ln}, nil
}

// sameUser drops connections whose peer is another user.
type sameUser struct{ net.Listener }

func (l *sameUser) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if uc, ok := c.(*net.UnixConn); ok && !peerIsUs(uc) {
			c.Close()
			continue
		}
		return c, nil
	}
}

// Dial connects to the daemon at path. A Unix socket connects or refuses
// at once (a full backlog is refused, not waited on), so timeout, which
// bounds a busy named pipe on Windows, has nothing to bound here; dialling
// directly also skips the Dialer's machinery (a deadline, a goroutine per
// attempt), which costs a sessioned command's start about 0.1 ms.
func Dial(path string, _ time.Duration) (net.Conn, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err // not a nil *UnixConn in a non-nil net.Conn
	}
	return c, nil
}

// Exists says whether a socket is present at path (a daemon's socket file
// that was removed leaves it unreachable).
func Exists(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&os.ModeSocket != 0
}

// Remove removes the socket file at path, if any.
func Remove(path string) { _ = os.Remove(path) }
