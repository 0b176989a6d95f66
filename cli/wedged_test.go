//go:build !windows

package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// fakeDaemon listens where session name's daemon would and reads each
// request; it answers a ping when pings is true, and nothing else ever
// (a daemon stuck on its requests, or stuck as a whole).
func fakeDaemon(t *testing.T, name string, pings bool) (dir string, rec *session.Record) {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := safesocket.Dir()
	if err != nil {
		t.Fatal(err)
	}
	rec = &session.Record{Name: name, Socket: safesocket.Path(dir, name), DaemonPid: os.Getpid()}
	ln, err := safesocket.Listen(rec.Socket)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			line, err := bufio.NewReader(c).ReadBytes('\n')
			var req session.Request
			if err == nil && json.Unmarshal(line, &req) == nil && req.Op == session.OpPing && pings {
				_, _ = c.Write([]byte(`{"code":0,"info":{"pid":1,"phase":"live","daemon_pid":1}}` + "\n"))
			}
		}
	})
	return dir, rec
}

// A request a daemon never answers is blamed on the daemon when it does not
// answer a ping either (its log and close-session are what work), and on
// the server when it does (stderr --session works).
func TestASilentDaemonIsToldFromASlowServer(t *testing.T) {
	req := &session.Request{Op: session.OpCall, Session: "x", Options: session.Options{TimeoutMS: 1000, RequestTimeoutMS: 1000}}
	for _, tc := range []struct {
		pings      bool
		want, omit []string
	}{
		{false, []string{"does not answer a ping either", "suspect the daemon", "x.log", "close-session x stops it", "the call's 1000 ms (--timeout) and a listing's 1000 ms (--request-timeout)"},
			[]string{"stderr --session x shows"}},
		{true, []string{"though it answers a ping", "suspect the server", "run-mcp stderr --session x shows", "x.log"}, nil},
	} {
		dir, rec := fakeDaemon(t, "x", tc.pings)
		err := daemonTrouble(dir, rec, session.ErrNoAnswer{After: 7 * time.Second}, req, false)
		if CodeOf(err) != ExitToolError {
			t.Errorf("pings %v: exit %d, want 1 (a daemon error): %v", tc.pings, CodeOf(err), err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("pings %v: the message does not say %q:\n%v", tc.pings, w, err)
			}
		}
		for _, w := range tc.omit {
			if strings.Contains(err.Error(), w) {
				t.Errorf("pings %v: the message says %q:\n%v", tc.pings, w, err)
			}
		}
	}
}

// A client waits for its daemon its operation's budget plus the margin,
// then what its session's record adds (Longer), and no more.
func TestAskWaitsTheBudgetThenLonger(t *testing.T) {
	_, rec := fakeDaemon(t, "y", false)
	conn, err := session.Dial(rec.Socket)
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	conn.Longer = func() time.Duration { asked++; return 50 * time.Millisecond }
	_, err = conn.Ask(t.Context(), session.Request{Op: session.OpStderr, Session: "y"}, 50*time.Millisecond, nil)
	var silent session.ErrNoAnswer
	if !errors.As(err, &silent) || silent.After < 100*time.Millisecond || asked != 1 {
		t.Fatalf("got %v after asking Longer %d time(s), want no answer after its budget and what Longer added, asking once", err, asked)
	}
}

// A daemon gone when the request reached it (connection reset, its process
// no longer running) has its record removed, and the advice fits the
// command: one that names its server is told to run again, which starts
// the session afresh; one that does not is told how to give it.
func TestAGoneDaemonsAdviceFitsTheCommand(t *testing.T) {
	req := &session.Request{Op: session.OpCall, Session: "gone"}
	for _, gives := range []bool{false, true} {
		dir := t.TempDir()
		rec := &session.Record{Name: "gone", Socket: filepath.Join(dir, "gone.sock"), DaemonPid: 1 << 22}
		if err := session.SaveRecord(dir, rec); err != nil {
			t.Fatal(err)
		}
		err := daemonTrouble(dir, rec, syscall.ECONNRESET, req, gives)
		want, not := "Start it again by giving the server to run", "Run the same command again"
		if gives {
			want, not = not, want
		}
		if msg := err.Error(); !strings.Contains(msg, `session "gone" is gone`) || !strings.Contains(msg, want) || strings.Contains(msg, not) {
			t.Errorf("names its server %v: want %q and not %q in:\n%s", gives, want, not, msg)
		}
		if r, _ := session.LoadRecord(dir, "gone"); r != nil {
			t.Errorf("names its server %v: the gone daemon's record was kept", gives)
		}
	}
}
