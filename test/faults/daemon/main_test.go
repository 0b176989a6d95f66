//go:build !windows

// Package daemon injects faults into a session daemon through the built
// binary: garbage, oversized, old argv-style, misaddressed and a thousand
// concurrent requests; a failing accept; a stopped daemon; Ctrl-C during a
// call; a planted session directory. After each, the session must still
// answer a normal call correctly, or be gone without a trace.
package daemon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

var bin string

func TestMain(m *testing.M) {
	cleanup := targets.BuildAll("run-mcp-faults-daemon-", targets.Build{Out: &bin, Pkg: "./cmd/run-mcp"})
	goleak.VerifyTestMain(m, goleak.Cleanup(cleanup))
}

// patience bounds every run against hangs; nothing comes close to it.
const patience = 90 * time.Second

type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("run-mcp %s\nexit %d\n--- stdout ---\n%s\n--- stderr ---\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// session is one session under a private TMPDIR, closed (and its
// processes killed) when the test ends.
type session struct {
	t    *testing.T
	tmp  string
	name string
}

func newSession(t *testing.T, name string) *session {
	t.Helper()
	s := &session{t: t, tmp: t.TempDir(), name: name}
	t.Cleanup(func() {
		rec, _ := s.record()
		s.run("close-session", name)
		if rec == nil {
			return
		}
		// Only the processes the record names: after close-session their
		// pids are free, and on a busy machine (pid_max is 32768 here) one
		// may already be another test's client.
		for _, p := range []struct {
			pid   int
			start uint64
		}{{rec.DaemonPid, rec.DaemonStart}, {rec.Pid, rec.ServerStart}} {
			if p.pid > 0 && p.start != 0 && startOf(p.pid) == p.start {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	})
	return s
}

func (s *session) command(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = s.tmp
	c.Env = append(os.Environ(), "TMPDIR="+s.tmp)
	c.WaitDelay = 5 * time.Second
	return c
}

func (s *session) run(args ...string) result {
	s.t.Helper()
	return s.runWithin(patience, args...)
}

// runWithin runs run-mcp with args, failing the test as a hang when it has
// not ended after limit.
func (s *session) runWithin(limit time.Duration, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	c := s.command(ctx, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		s.t.Fatalf("run-mcp %s: %v (a hang past %s, or a crash)\n%s", strings.Join(args, " "), err, limit, r)
	}
	return r
}

// start starts the session on the demo server.
func (s *session) start(flags ...string) {
	s.t.Helper()
	r := s.run(append([]string{"list-tools", "--session", s.name, "--", bin, "demo-server"}, flags...)...)
	if r.code != 0 {
		s.t.Fatalf("start the session:\n%s", r)
	}
}

// echo is the normal call that must still work after each fault.
func (s *session) echo(msg string) {
	s.t.Helper()
	r := s.run("call", "echo", "message="+msg, "--session", s.name)
	if r.code != 0 || !strings.Contains(r.stdout, "echo: "+msg) {
		s.t.Fatalf("the session no longer answers a normal call:\n%s", r)
	}
}

type record struct {
	Socket      string `json:"socket"`
	DaemonPid   int    `json:"daemon_pid"`
	DaemonStart uint64 `json:"daemon_start"`
	Pid         int    `json:"pid"`
	ServerStart uint64 `json:"server_start"`
}

func (s *session) dir() string {
	return filepath.Join(s.tmp, fmt.Sprintf("run-mcp-%d", os.Getuid()), "sessions")
}

func (s *session) record() (*record, error) {
	b, err := os.ReadFile(filepath.Join(s.dir(), s.name+".json"))
	if err != nil {
		return nil, err
	}
	var r record
	return &r, json.Unmarshal(b, &r)
}

func (s *session) mustRecord() *record {
	s.t.Helper()
	r, err := s.record()
	if err != nil {
		s.t.Fatalf("the session's record: %v", err)
	}
	return r
}

func (s *session) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir(), s.name+".log"))
	return string(b)
}

type reply struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

// send writes one raw line to the daemon and reads its one-line reply.
func send(t *testing.T, socket string, line []byte) reply {
	t.Helper()
	c, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		t.Fatalf("dial the daemon: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(patience))
	if _, err := c.Write(append(line, '\n')); err != nil {
		t.Fatalf("send: %v", err)
	}
	b, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("the daemon did not answer %s: %v", clip(line), err)
	}
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("the reply is not JSON: %q", b)
	}
	return r
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// alive says whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// startOf is pid's start time (clock ticks since boot, /proc/PID/stat
// field 22), as the session record keeps it; 0 when there is no such
// process.
func startOf(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// eventually polls cond until a generous deadline.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience / 2)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func requireLinux(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs Linux /proc")
	}
}
