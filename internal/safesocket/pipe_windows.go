package safesocket

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

// A session's daemon listens on a named pipe, not a Unix socket. Pipes live
// in one machine-wide namespace, so the pipe is named for its user and its
// session directory, created as the first instance (a name someone else
// holds is refused, never shared) with an access list that admits only its
// user, and a client checks that the pipe it reached is owned by its user
// before it sends anything. Connections are *os.File on overlapped
// handles, so reads and writes take deadlines and Close interrupts them.

// maxPipeName is the longest pipe name Windows accepts (in characters).
const maxPipeName = 256

// pipeBuffer is the pipe's in and out buffer size (a hint to Windows).
const pipeBuffer = 64 << 10

// Path is the pipe name for a session:
// \\.\pipe\run-mcp-<SID>-<hash of dir>-<name>, with a short hash of the
// name when that would be too long. The directory's hash keeps two session
// directories (another TMP) apart, as their Unix sockets would be.
func Path(dir, name string) string {
	user, err := userTag()
	if err != nil {
		user = "unknown-user" // Listen and Dial fail on the SID with the reason
	}
	d := sha256.Sum256([]byte(strings.ToLower(filepath.Clean(dir))))
	base := `\\.\pipe\run-mcp-` + user + "-" + hex.EncodeToString(d[:4]) + "-"
	if p := base + name; len(p) <= maxPipeName {
		return p
	}
	n := sha256.Sum256([]byte(name))
	return base + "s-" + hex.EncodeToString(n[:6])
}

// Listen creates the named pipe path for this user alone. A pipe of that
// name that already exists is refused: it is another daemon's, or someone
// created it first to stand in for the session.
func Listen(path string) (net.Listener, error) {
	sid, err := currentSID()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString(ownerOnly(sid.String(), false))
	if err != nil {
		return nil, fmt.Errorf("build the named pipe's access list: %w", err)
	}
	// FILE_FLAG_FIRST_PIPE_INSTANCE refuses a name that exists. Looking
	// first, and checking the created pipe's descriptor after, refuse it
	// too where that flag is not honoured (Wine).
	var l *pipeListener
	if Exists(path) {
		err = errTaken
	} else if l, err = newPipeListener(path, sd); err == nil {
		if verr := ownedByUs(l.next, path); verr != nil {
			l.Close()
			err = fmt.Errorf("%w: %v", errTaken, verr)
		}
	}
	if err != nil {
		if errors.Is(err, errTaken) || nameTaken(err) {
			return nil, fmt.Errorf("the named pipe %s already exists, so this session cannot listen on it: another run-mcp daemon serves it, or another program (perhaps another user's) created it first. "+
				"If it is a session of yours, close-session it; otherwise stop the process that holds the pipe (Sysinternals `handle -a %s` finds it) and run again (%w)", path, strings.TrimPrefix(path, `\\.\pipe\`), err)
		}
		return nil, fmt.Errorf("create the named pipe %s: %w", path, err)
	}
	return l, nil
}

// errTaken is a pipe name that exists before this listener created it.
var errTaken = errors.New("a pipe of that name exists")

// nameTaken says whether creating the first instance of a pipe failed
// because the name exists, whoever holds it (FILE_FLAG_FIRST_PIPE_INSTANCE
// fails with ERROR_ACCESS_DENIED then).
func nameTaken(err error) bool {
	for _, e := range []error{windows.ERROR_ACCESS_DENIED, windows.ERROR_ALREADY_EXISTS, windows.ERROR_PIPE_BUSY} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Dial connects to the daemon's pipe, waiting up to timeout while every
// instance is busy, and checks that the pipe is owned by this user before
// anything is sent on it. The client allows the server no impersonation of
// it (SECURITY_ANONYMOUS).
func Dial(path string, timeout time.Duration) (net.Conn, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, fmt.Errorf("the pipe name %q is not valid: %w", path, err)
	}
	deadline := time.Now().Add(timeout)
	for {
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_ANONYMOUS, 0)
		if err == nil {
			if err := ownedByUs(h, path); err != nil {
				windows.CloseHandle(h)
				return nil, err
			}
			return newPipeConn(h, path), nil
		}
		left := time.Until(deadline)
		if !errors.Is(err, windows.ERROR_PIPE_BUSY) || left <= 0 {
			return nil, fmt.Errorf("connect to the named pipe %s: %w", path, err)
		}
		waitNamedPipe(p, min(left, 100*time.Millisecond))
	}
}

// ownedByUs checks that the pipe a handle reached is this user's alone.
func ownedByUs(h windows.Handle, path string) error {
	sid, err := currentSID()
	if err != nil {
		return err
	}
	sd, err := windows.GetSecurityInfo(h, windows.SE_KERNEL_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("read the owner of the named pipe %s: %w; refusing to use it", path, err)
	}
	if err := onlyUser(sd, sid); err != nil {
		return fmt.Errorf("refusing the named pipe %s: %w, so it is not your session's daemon; another program may have taken its name. Close the session (close-session) and start it again", path, err)
	}
	return nil
}

// Exists says whether a pipe of that name is present, without connecting
// to it: WaitNamedPipe fails with ERROR_FILE_NOT_FOUND only when there is
// none (a busy pipe times out, and still exists).
func Exists(path string) bool {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return false
	}
	err = waitNamedPipe(p, time.Millisecond)
	return err == nil || !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) && !errors.Is(err, windows.ERROR_BAD_PATHNAME)
}

// Remove: a named pipe goes with its last handle, so there is no file to
// remove.
func Remove(string) {}
