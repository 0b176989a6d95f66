package safesocket

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// maxSocketPath is the room a Unix socket path has (sun_path, with its NUL).
const maxSocketPath = 100

// Dir returns the owner-only directory for run-mcp's sessions,
// <tmp>/run-mcp-<uid>/sessions, creating each level 0700. A level that is a
// symbolic link, belongs to another user or that others can write is
// refused with what was found and what to do; it is never chmodded or
// followed (another user may have planted it).
func Dir() (string, error) {
	if err := supported(); err != nil {
		return "", err
	}
	top := filepath.Join(os.TempDir(), fmt.Sprintf("run-mcp-%d", os.Getuid()))
	dir := filepath.Join(top, "sessions")
	for _, d := range []string{top, dir} {
		if err := privateDir(d); err != nil {
			return "", err
		}
	}
	return dir, nil
}

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
// connections from this user.
func Listen(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict the socket %s: %w", path, err)
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

// Dial connects to the daemon at path.
func Dial(path string, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", path, timeout)
}
