//go:build !windows

package safesocket

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxSocketPath is the room a Unix socket path has (sun_path, with its NUL).
const maxSocketPath = 100

// userTag names this user in the session directory: the uid.
func userTag() (string, error) { return strconv.Itoa(os.Getuid()), nil }

// shortRoot holds the sockets of session directories too deep for one: a
// directory every Unix has, with a short path.
const shortRoot = "/tmp"

// shortTmp is how to carry on when the short socket directory was taken:
// a temp directory of one's own whose socket paths fit where it is.
const shortTmp = "or carry on without it: set TMPDIR to a directory only you can write whose path is under 55 characters (mkdir -m 700 ~/.tmp && export TMPDIR=~/.tmp) and run again"

// shortDirs are the two levels of the short socket directory,
// /tmp/run-mcp-<uid>/s: beside the sessions and out directories when
// TMPDIR is /tmp, checked the same way.
func shortDirs() (top, dir string) {
	user, _ := userTag()
	top = filepath.Join(shortRoot, "run-mcp-"+user)
	return top, filepath.Join(top, "s")
}

// Path is the socket path for a session name: <dir>/<name>.sock, or a short
// hashed name in dir when the name makes that too long for a Unix socket.
// When dir itself is too deep (a long TMPDIR: macOS's own is about 50
// characters, and a test's t.TempDir() adds as many), it is a name hashed
// from dir and name in the short directory /tmp/run-mcp-<uid>/s, which
// Listen creates and Dial checks as Dir does dir: sessions of different
// temp directories never share a socket, and a session works whatever
// TMPDIR's length.
func Path(dir, name string) string {
	p := filepath.Join(dir, name+".sock")
	if len(p) < maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(name))
	if p := filepath.Join(dir, "s-"+hex.EncodeToString(sum[:6])+".sock"); len(p) < maxSocketPath {
		return p
	}
	sum = sha256.Sum256([]byte(dir + "\x00" + name))
	_, short := shortDirs()
	return filepath.Join(short, hex.EncodeToString(sum[:12])+".sock")
}

// inShortDir says whether path is a socket in the short directory.
func inShortDir(path string) bool {
	_, short := shortDirs()
	return filepath.Dir(path) == short
}

// Listen listens on path, replacing a stale socket file, and accepts only
// connections from this user. Closing the listener leaves the file: the
// caller removes it (Remove) once it has checked the file is still its own,
// since a later daemon of the same name may have replaced it, and Go's
// default unlink on Close would remove that one's socket. A path in the
// short directory (see Path) gets that directory made private first.
func Listen(path string) (net.Listener, error) {
	return listenIn(path, parents(path))
}

// parents are the directories of path that Listen makes private and Dial
// checks: the short directory's two levels, or none (Dir made and checked
// a session directory).
func parents(path string) []string {
	if !inShortDir(path) {
		return nil
	}
	top, short := shortDirs()
	return []string{top, short}
}

// listenIn is Listen, with dirs made private first.
func listenIn(path string, dirs []string) (net.Listener, error) {
	for _, d := range dirs {
		if err := privateDirOr(d, shortTmp); err != nil {
			return nil, fmt.Errorf("the temp directory %s is too deep for a socket path, so the session's socket goes in %s: %w", os.TempDir(), filepath.Dir(path), err)
		}
	}
	if len(dirs) > 0 {
		pruneStale(filepath.Dir(path))
	}
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
//
// A socket in the short directory (see Path) is dialled only while both
// levels of that directory are this user's and closed to others: nothing
// else has checked them, and a socket planted there would be sent the
// command's arguments.
func Dial(path string, _ time.Duration) (net.Conn, error) {
	return dialIn(path, parents(path))
}

// dialIn is Dial, dialling only once dirs are checked.
func dialIn(path string, dirs []string) (net.Conn, error) {
	for _, d := range dirs {
		if err := checkPrivate(d, shortTmp); err != nil {
			return nil, err
		}
	}
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

// staleAfter is how old a socket file must be before pruneStale tries it:
// a daemon listens within microseconds of creating its file, so one that
// refuses connections after this long has no daemon.
const staleAfter = time.Minute

// pruneStale removes the sockets in dir that no daemon listens on any more
// (a daemon killed with SIGKILL leaves its file behind), so the short
// directory, which every deep temp directory shares, does not fill up as
// their own directories, removed with them, never did.
func pruneStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSocket == 0 || !strings.HasSuffix(e.Name(), ".sock") {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < staleAfter {
			continue
		}
		p := filepath.Join(dir, e.Name())
		c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: p, Net: "unix"})
		if err == nil {
			c.Close() // a live daemon drops a connection without a request
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			_ = os.Remove(p)
		}
	}
}
