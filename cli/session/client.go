package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// Start spawns the session's daemon, detached, hands it spec and waits up
// to wait for it to connect to the server. A server that fails to start
// leaves no session.
func Start(dir string, spec Spec, wait time.Duration) (*Record, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, errorf(ExitInternal, "find run-mcp's own binary to start the session daemon: %v", err)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return nil, errorf(ExitUsage, "the session's settings cannot be encoded (%v); check --idle-timeout and --connect-timeout", err)
	}
	logf, err := safesocket.OpenPrivate(LogPath(dir, spec.Name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC)
	if err != nil {
		return nil, errorf(ExitToolError, "open the session log: %v", err)
	}
	defer logf.Close()
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, errorf(ExitInternal, "%v", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, errorf(ExitInternal, "%v", err)
	}
	defer statusR.Close()
	c := exec.Command(self, DaemonCommand)
	c.Stdin, c.Stderr = specR, logf
	passStatus(c, statusW)
	c.SysProcAttr = detachedAttr()
	err = c.Start()
	specR.Close()
	statusW.Close()
	if err != nil {
		specW.Close()
		return nil, errorf(ExitInternal, "start the session daemon: %v", err)
	}
	_, _ = specW.Write(b)
	specW.Close()
	noteDaemon(dir, spec.Name, c.Process.Pid)
	_ = c.Process.Release()
	return awaitStart(dir, spec.Name, statusR, wait)
}

// awaitStart reads the daemon's start status.
func awaitStart(dir, name string, status *os.File, wait time.Duration) (*Record, error) {
	line, err := readStatus(status, wait)
	var st StartStatus
	if err != nil || json.Unmarshal(line, &st) != nil {
		return nil, errorf(ExitToolError, "the session daemon for %q stopped before it could report: %s", name, LogTail(dir, name))
	}
	if !st.OK {
		code := st.Code
		if code == 0 {
			code = ExitUnavail
		}
		return nil, &Error{Code: code, Err: errors.New(st.Error), Exit: st.Exit, Stderr: st.Stderr}
	}
	rec, err := LoadRecord(dir, name)
	if err != nil || rec == nil {
		return nil, errorf(ExitToolError, "the session daemon for %q started but left no record: %s", name, LogTail(dir, name))
	}
	return rec, nil
}

// Prune removes a dead session's record and socket.
func Prune(dir string, rec *Record) {
	RemoveRecord(dir, rec.Name)
	safesocket.Remove(rec.Socket)
}

// LogTail is the last lines of a session's daemon log, for a death report.
func LogTail(dir, name string) string {
	b, err := safesocket.ReadPrivate(LogPath(dir, name), 64<<20)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return "(the daemon log is empty)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return fmt.Sprintf("%s:\n  %s", LogPath(dir, name), strings.Join(lines, "\n  "))
}

// readStatus reads the daemon's one status line within wait. A pipe that
// takes no deadline (an anonymous pipe on Windows) is read on a goroutine
// that is given up on at the deadline; it ends when the daemon writes or
// exits.
func readStatus(f *os.File, wait time.Duration) ([]byte, error) {
	if err := f.SetReadDeadline(time.Now().Add(wait)); err == nil {
		return bufio.NewReader(f).ReadBytes('\n')
	}
	type result struct {
		line []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := bufio.NewReader(f).ReadBytes('\n')
		got <- result{line, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case r := <-got:
		return r.line, r.err
	case <-timer.C:
		return nil, os.ErrDeadlineExceeded
	}
}

// StartFailed says the daemon's log (one daemon's: each start truncates
// it) says its server failed to start.
func StartFailed(dir, name string) bool {
	b, err := safesocket.ReadPrivate(LogPath(dir, name), 64<<20)
	return err == nil && bytes.Contains(b, []byte("session "+name+": the server failed to start"))
}

// HowItEnded is why a session with no record stopped by itself, from the
// last words of its daemon's log: "it closed after 3s without a command
// (--idle-timeout)", "its daemon was signalled to stop", or that its socket
// was removed; "" when the log
// says neither (close-session, or no log at all).
func HowItEnded(dir, name string) string {
	b, err := safesocket.ReadPrivate(LogPath(dir, name), 64<<20)
	if err != nil {
		return ""
	}
	prefix := "session " + name + ": "
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-3; i-- {
		_, said, ok := strings.Cut(lines[i], prefix)
		switch {
		case !ok:
		case strings.HasPrefix(said, "closing after ") && strings.HasSuffix(said, "(--idle-timeout)"):
			return "it closed after " + strings.TrimPrefix(said, "closing after ")
		case said == "signalled to stop":
			return "its daemon was signalled to stop"
		case strings.HasPrefix(said, "closing: its socket "):
			return "its daemon closed it because its socket was removed from the temp directory (something cleaned it), so no command could reach it"
		}
	}
	return ""
}
