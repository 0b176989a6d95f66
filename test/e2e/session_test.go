//go:build !windows

// These tests find processes and read their environment through /proc and
// the session directory's Unix sockets; Windows sessions (named pipes) are
// covered by internal/safesocket and cli/session.

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// session runs the commands of one test against one session directory and
// closes whatever is left when the test ends.
type session struct {
	t    *testing.T
	tmp  string
	name string
}

func newSession(t *testing.T, name string) *session {
	s := &session{t: t, tmp: t.TempDir(), name: name}
	t.Cleanup(func() {
		runIn(t, s.tmp, "close-session", name)
		// A failing test must not leave a daemon behind either.
		for _, pid := range s.daemons() {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	return s
}

// daemons lists the session daemons started under this test's temp dir.
func (s *session) daemons() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil &&
			strings.Contains(string(b), "session-daemon") && strings.Contains(environOf(e.Name()), "TMPDIR="+s.tmp) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func (s *session) run(args ...string) result {
	s.t.Helper()
	return runIn(s.t, s.tmp, args...)
}

type sessionRow struct {
	Name      string   `json:"name"`
	Pid       int      `json:"pid"`
	DaemonPid int      `json:"daemon_pid"`
	EnvKeys   []string `json:"env_keys"`
	Command   string   `json:"command"`
	Cwd       string   `json:"cwd"`
	Protocol  string   `json:"protocol"`
	StartedAt string   `json:"started_at"`
	Uptime    string   `json:"uptime"`
	Idle      string   `json:"idle_timeout"`
}

func (s *session) list() []sessionRow {
	s.t.Helper()
	r := s.run("sessions")
	r.wantCode(s.t, 0)
	var rows []sessionRow
	r.json(s.t, &rows)
	return rows
}

func TestSessionDevLoop(t *testing.T) {
	t.Parallel()
	s := newSession(t, "main")
	tools := filepath.Join(t.TempDir(), "tools.txt")
	if err := os.WriteFile(tools, []byte("extra_one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	target := demo("--tools-file", tools)

	r := s.run(args([]string{"call", "env", "name=API_KEY", "--session", "main", "--env", "API_KEY=sk-secret-123"}, target)...)
	r.wantCode(t, 0)
	r.wantStdout(t, `API_KEY is set: \"sk-secret-123\"`)

	// Later calls attach without the command and print nothing but the result.
	r = s.run("call", "echo", "message=again", "--session", "main")
	r.wantCode(t, 0)
	r.wantStdout(t, "echo: again")
	if strings.TrimSpace(r.stderr) != "" {
		t.Errorf("a sessioned call must print nothing but the result; stderr:\n%s", r.stderr)
	}

	rows := s.list()
	if len(rows) != 1 || rows[0].Name != "main" || strings.Join(rows[0].EnvKeys, ",") != "API_KEY" {
		t.Fatalf("sessions: %+v", rows)
	}
	serverPid, daemonPid := rows[0].Pid, rows[0].DaemonPid
	assertNoSecret(t, s.tmp, "sk-secret-123")

	// A different command, or different env, is refused with the difference.
	r = s.run(args([]string{"list-tools", "--session", "main"}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, `session "main" is already running a different server`, "close-session main")
	r = s.run("list-tools", "--session", "main", "--env", "API_KEY=other")
	r.wantCode(t, 64)
	r.wantStderr(t, "env differs for: API_KEY (names only", "close-session main")
	if strings.Contains(r.stderr, "other") || strings.Contains(r.stderr, "sk-secret") {
		t.Errorf("a refusal must not echo env values:\n%s", r.stderr)
	}

	// Edit the server, reconnect, see what changed.
	if err := os.WriteFile(tools, []byte("search_images\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = s.run("reconnect", "--session", "main")
	r.wantCode(t, 0)
	var rec struct {
		Reconnected bool     `json:"reconnected"`
		Pid         int      `json:"pid"`
		Changes     []string `json:"changes"`
	}
	r.json(t, &rec)
	if !rec.Reconnected || rec.Pid == serverPid || !contains(rec.Changes, "  Tools: +1 added (search_images), -1 removed (extra_one)") ||
		!contains(rec.Changes, "  Resources: unchanged") {
		t.Fatalf("reconnect: %+v", rec)
	}
	if !dead(serverPid) {
		t.Errorf("the old server PID %d still runs after reconnect", serverPid)
	}

	// stderr is data, from the running server.
	s.run("call", "stderr", "lines:=2", "--session", "main").wantCode(t, 0)
	r = s.run("stderr", "2", "--session", "main")
	var lines []string
	r.json(t, &lines)
	if strings.Join(lines, "|") != "stderr line 1|stderr line 2" {
		t.Fatalf("stderr --session: %q", lines)
	}

	// validate checks the running instance.
	r = s.run("validate", "--session", "main")
	r.wantCode(t, 0)
	r.wantStdout(t, "Validation Result: SUCCESS", "Status: PASS")

	r = s.run("close-session", "main")
	r.wantCode(t, 0)
	if rows := s.list(); len(rows) != 0 {
		t.Fatalf("after close-session: %+v", rows)
	}
	for _, pid := range []int{rec.Pid, daemonPid} {
		waitGone(t, pid, "a process of the closed session")
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// assertNoSecret checks that no session file holds an env value.
func assertNoSecret(t *testing.T, tmp, secret string) {
	t.Helper()
	_ = filepath.Walk(tmp, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("%s holds an env value", p)
			}
		}
		return nil
	})
}

func TestSessionServerFailsToStart(t *testing.T) {
	t.Parallel()
	s := newSession(t, "broken")
	r := s.run(args([]string{"call", "echo", "message=x", "--session", "broken"}, demo("--crash-at-start", "no database"))...)
	r.wantCode(t, 69)
	r.wantStderr(t, "Failed to connect: Connection closed", "The server exited with code 1.", "demo-server: fatal: no database")
	if rows := s.list(); len(rows) != 0 {
		t.Fatalf("a session whose server failed to start was left behind: %+v", rows)
	}
	r = s.run("call", "echo", "message=x", "--session", "broken")
	r.wantCode(t, 64)
	r.wantStderr(t, `Session "broken" is not running`, "run-mcp call --session broken -- ")
}

// startAndKillDaemon starts the session on the demo server, kills its
// daemon with SIGKILL and waits for it to be gone; the row is the dead one.
func (s *session) startAndKillDaemon(t *testing.T, name string) sessionRow {
	t.Helper()
	s.run(args([]string{"list-tools", "--session", name}, demo())...).wantCode(t, 0)
	rows := s.list()
	if len(rows) != 1 {
		t.Fatalf("sessions: %+v", rows)
	}
	p, _ := os.FindProcess(rows[0].DaemonPid)
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, rows[0].DaemonPid, "the killed daemon")
	return rows[0]
}

func TestSessionDaemonDeathIsExplained(t *testing.T) {
	t.Parallel()
	s := newSession(t, "fragile")
	dead := s.startAndKillDaemon(t, "fragile")
	waitGone(t, dead.Pid, "the server of a killed daemon")
	r := s.run("call", "echo", "message=x", "--session", "fragile")
	r.wantCode(t, 1)
	r.wantStderr(t, `session "fragile" is gone: its daemon is not answering`, "Its log says:", "session fragile: serving")
	if rows := s.list(); len(rows) != 0 {
		t.Fatalf("the dead session's record was not pruned: %+v", rows)
	}
}

// A command that gives the server starts a session whose daemon died
// afresh, as it would with no record, and says what became of the old one.
func TestSessionDeadDaemonRestarts(t *testing.T) {
	t.Parallel()
	s := newSession(t, "phoenix")
	dead := s.startAndKillDaemon(t, "phoenix")
	r := s.run(args([]string{"call", "echo", "message=again", "--session", "phoenix"}, demo())...)
	r.wantCode(t, 0)
	r.wantStdout(t, "echo: again")
	r.wantStderr(t, `session "phoenix" was gone: its daemon (PID `+strconv.Itoa(dead.DaemonPid)+`) is no longer running`,
		"the session is started again", "session phoenix: serving")
	after := s.list()
	if len(after) != 1 || after[0].DaemonPid == dead.DaemonPid {
		t.Fatalf("want one session with a new daemon, got %+v (the dead one was PID %d)", after, dead.DaemonPid)
	}
	s.run("call", "echo", "message=warm", "--session", "phoenix").wantCode(t, 0)
}

func TestSessionReconnectInterruptsACall(t *testing.T) {
	t.Parallel()
	s := newSession(t, "busy")
	s.run(args([]string{"list-tools", "--session", "busy"}, demo())...).wantCode(t, 0)
	done := make(chan result, 1)
	go func() { done <- s.run("call", "slow", "seconds:=10", "--session", "busy") }()
	time.Sleep(300 * time.Millisecond) // let the call reach the server; not a timing assertion
	s.run("reconnect", "--session", "busy").wantCode(t, 0)
	r := <-done
	r.wantCode(t, 1)
	r.wantStderr(t, "A reconnect interrupted this call")
}

func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	s := newSession(t, "sleepy")
	s.run(args([]string{"list-tools", "--session", "sleepy", "--idle-timeout", "0.01"}, demo())...).wantCode(t, 0)
	rows := s.list()
	if len(rows) != 1 || rows[0].Idle != "600ms" { // 0.01 minutes
		t.Fatalf("sessions must show the idle timeout: %+v", rows)
	}
	waitGone(t, rows[0].DaemonPid, "the daemon of an idle session")
	waitGone(t, rows[0].Pid, "the server of an idle session")
	if rows := s.list(); len(rows) != 0 {
		t.Fatalf("an idle session was left listed: %+v", rows)
	}
}

func TestSessionUsageErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	runIn(t, tmp, "list-tools", "--session", "bad/name", "--", bin, "demo-server").wantCode(t, 64)
	r := runIn(t, tmp, "reconnect")
	r.wantCode(t, 64)
	r.wantStderr(t, "pass --session <name>")
	runIn(t, tmp, "close-session", "nothing-here").wantCode(t, 1)
}

// Several commands racing to start one session start one daemon, and all
// of them are answered by it.
func TestSessionConcurrentFirstCalls(t *testing.T) {
	t.Parallel()
	s := newSession(t, "race")
	const n = 4
	results := make(chan result, n)
	for range n {
		go func() {
			results <- s.run(args([]string{"call", "echo", "message=racer", "--session", "race"}, demo())...)
		}()
	}
	for range n {
		r := <-results
		r.wantCode(t, 0)
		r.wantStdout(t, "echo: racer")
	}
	if rows := s.list(); len(rows) != 1 {
		t.Fatalf("want one session, got %+v", rows)
	}
	if daemons := s.daemons(); len(daemons) != 1 {
		t.Fatalf("%d session daemons run for one session: %v", len(daemons), daemons)
	}
}

func environOf(pid string) string {
	b, _ := os.ReadFile(filepath.Join("/proc", pid, "environ"))
	return string(b)
}

// A warm call runs its tool exactly once and prints its own answer, in
// every spelling of the command line.
func TestSessionWarmCallsRunOnce(t *testing.T) {
	t.Parallel()
	s := newSession(t, "once")
	s.run(args([]string{"list-tools", "--session", "once"}, demo())...).wantCode(t, 0)
	lines := [][]string{
		{"call", "bump_counter", "--session", "once"},
		{"call", "--session", "once", "bump_counter"},
		{"call", "bump_counter", "--session=once"},
		{"call", "bump_counter", "--session", "once", "--timeout", "60000"},
		{"call", "bump_counter", "--session", "once"},
	}
	for i, line := range lines {
		r := s.run(line...)
		r.wantCode(t, 0)
		r.wantStdout(t, fmt.Sprintf(`"text": "%d"`, i+1))
	}
	r := s.run("call", "echo", "message=<a&b> = é", "--session", "once")
	r.wantCode(t, 0)
	r.wantStdout(t, `echo: \u003ca\u0026b\u003e = é`)
}

// A warm sessioned call prints what the same call prints one-shot: the
// result on stdout, the tool's error, a missing argument and a misspelled
// tool on stderr, each with its exit code.
func TestSessionWarmCallsAnswerAsOneShot(t *testing.T) {
	t.Parallel()
	s := newSession(t, "same")
	s.run(args([]string{"list-tools", "--session", "same"}, demo())...).wantCode(t, 0)
	for _, tc := range []struct {
		words  []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"echo", "message=<a&b> é"}, 0, `"text": "echo: \u003ca\u0026b\u003e é"`, ""},
		{[]string{"add", "a=2", "b=3.5"}, 0, `"text": "5.5"`, ""}, // shorthand typed by the tool's schema
		{[]string{"fail"}, 1, "", ""},                             // isError
		{[]string{"echo"}, 64, "", "message"},                     // a required argument is missing
		{[]string{"ecco", "message=hi"}, 64, "", `"echo"`},        // an unknown tool, with a suggestion
	} {
		oneShot := s.run(args(append([]string{"call"}, tc.words...), demo())...)
		warm := s.run(append(append([]string{"call"}, tc.words...), "--session", "same")...)
		for _, r := range []result{oneShot, warm} {
			r.wantCode(t, tc.code)
			if tc.stdout != "" {
				r.wantStdout(t, tc.stdout)
			}
			if tc.stderr != "" {
				r.wantStderr(t, tc.stderr)
			}
		}
		if warm.stdout != oneShot.stdout {
			t.Errorf("call %q prints\n%s\nwarm, and\n%s\none-shot", tc.words, warm.stdout, oneShot.stdout)
		}
	}
}

// A sessioned call takes the arguments a one-shot call takes: an object of
// 20 MiB (over the 16 MiB sessions once refused) runs the tool as it does
// one-shot.
func TestSessionTakesArgumentsAsLargeAsOneShot(t *testing.T) {
	t.Parallel()
	s := newSession(t, "large")
	s.run(args([]string{"list-tools", "--session", "large"}, demo())...).wantCode(t, 0)
	file := filepath.Join(t.TempDir(), "args.json")
	message := strings.Repeat("x", 20<<20)
	if err := os.WriteFile(file, []byte(`{"message":"`+message+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	oneShot := s.run(args([]string{"call", "echo", "@" + file}, demo())...)
	warm := s.run("call", "echo", "@"+file, "--session", "large")
	for _, r := range []result{oneShot, warm} {
		r.wantCode(t, 0)
		r.wantStdout(t, "echo: xxxxxxxx")
	}
}
