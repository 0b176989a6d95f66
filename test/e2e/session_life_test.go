//go:build !windows

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// flaky is a target that says which process it is on stderr, then fails to
// start while the file fail exists, and serves the demo otherwise; each
// start appends a line to starts.
func flaky(t *testing.T) (target []string, fail, starts string) {
	dir := t.TempDir()
	fail, starts = filepath.Join(dir, "fail"), filepath.Join(dir, "starts")
	script := `echo "hello from $$" >&2; echo "$$" >> "$STARTS"; if [ -f "$FAIL" ]; then echo broken >&2; exit 1; fi; exec "$DEMO" demo-server`
	return []string{"--env", "STARTS=" + starts, "--env", "FAIL=" + fail, "--env", "DEMO=" + bin, "--", "sh", "-c", script}, fail, starts
}

// lines reads a file of lines.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// reconnect --session NEW -- cmd, as "is not running" suggests, starts the
// session's server once and reports it; it does not restart it at once.
func TestSessionReconnectOfANewSessionStartsOnce(t *testing.T) {
	t.Parallel()
	s := newSession(t, "fresh")
	target, _, starts := flaky(t)
	r := s.run(append([]string{"reconnect", "--session", "fresh"}, target...)...)
	r.wantCode(t, 0)
	var rep struct {
		Reconnected bool     `json:"reconnected"`
		Started     bool     `json:"started"`
		Pid         int      `json:"pid"`
		Changes     []string `json:"changes"`
	}
	r.json(t, &rep)
	if !rep.Reconnected || !rep.Started || rep.Pid == 0 {
		t.Errorf("reconnect of a new session: %+v\n%s", rep, r)
	}
	if got := lines(t, starts); len(got) != 1 {
		t.Errorf("the server was started %d times (pids %v), want once\n%s", len(got), got, r)
	}
	if rows := s.list(); len(rows) != 1 || rows[0].Pid != rep.Pid {
		t.Errorf("sessions: %+v, want the one server reconnect reported (pid %d)", rows, rep.Pid)
	}
}

// After a reconnect that failed, sessions shows no pid (the dead one may be
// reused) and stderr --session shows the failed process's lines alone;
// after one that worked, the new process's alone. The protocol is the
// revision the server negotiated, the mode it was asked beside it.
func TestSessionAfterAReconnect(t *testing.T) {
	t.Parallel()
	s := newSession(t, "flaky")
	target, fail, _ := flaky(t)
	s.run(append([]string{"--protocol", "auto", "list-tools", "--session", "flaky"}, target...)...).wantCode(t, 0)
	var rows []struct {
		Pid          *int   `json:"pid"`
		Phase        string `json:"phase"`
		Protocol     string `json:"protocol"`
		ProtocolMode string `json:"protocol_mode"`
	}
	list := func() {
		t.Helper()
		r := s.run("sessions")
		r.wantCode(t, 0)
		r.json(t, &rows)
		if len(rows) != 1 {
			t.Fatalf("sessions: %s", r)
		}
	}
	list()
	if rows[0].Pid == nil || rows[0].Protocol != "2026-07-28" || rows[0].ProtocolMode != "auto" {
		t.Errorf("a live auto session: %+v, want its pid, protocol 2026-07-28 and protocol_mode auto", rows[0])
	}

	if err := os.WriteFile(fail, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := s.run("reconnect", "--session", "flaky")
	r.wantCode(t, 69)
	var failed struct {
		Reconnected bool     `json:"reconnected"`
		Stderr      []string `json:"stderr"`
	}
	r.json(t, &failed)
	if failed.Reconnected || strings.Join(failed.Stderr, "|") != strings.Join(stderrOf(t, s, "flaky"), "|") {
		t.Errorf("the failed reconnect's stderr %q is not what stderr --session shows", failed.Stderr)
	}
	list()
	if rows[0].Pid != nil || rows[0].Phase != "failed" {
		t.Errorf("after a failed reconnect: %+v, want no pid and phase failed", rows[0])
	}
	if got := stderrOf(t, s, "flaky"); len(got) != 2 || !strings.HasPrefix(got[0], "hello from ") || got[1] != "broken" {
		t.Errorf("stderr --session after a failed reconnect: %q, want the failed process's two lines alone", got)
	}

	if err := os.Remove(fail); err != nil {
		t.Fatal(err)
	}
	s.run("reconnect", "--session", "flaky").wantCode(t, 0)
	list()
	if rows[0].Pid == nil || rows[0].Phase != "live" {
		t.Fatalf("after a reconnect that worked: %+v", rows[0])
	}
	want := []string{"hello from " + itoa(*rows[0].Pid)}
	if got := stderrOf(t, s, "flaky"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stderr --session after a reconnect: %q, want the new server's line alone %q", got, want)
	}
	if got := stderrOf(t, s, "flaky", "1"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("stderr 1 --session: %q, want %q", got, want)
	}
}

func stderrOf(t *testing.T, s *session, name string, count ...string) []string {
	t.Helper()
	r := s.run(append(append([]string{"stderr"}, count...), "--session", name)...)
	r.wantCode(t, 0)
	var got []string
	r.json(t, &got)
	return got
}

// --session with no name, or a name too long for a file, is refused before
// anything starts, saying which.
func TestSessionNameRefusals(t *testing.T) {
	t.Parallel()
	s := newSession(t, "unused")
	r := s.run(args([]string{"list-tools", "--session", ""}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, "--session needs a name")
	r = s.run(args([]string{"list-tools", "--session=" + strings.Repeat("a", 201)}, demo())...)
	r.wantCode(t, 64)
	r.wantStderr(t, "is 201 bytes long, and the limit is 200")
	if strings.Contains(r.stderr, "Connecting") {
		t.Errorf("a refused session name spawned the server\n%s", r)
	}
}

// Over HTTP there is no stderr: a sessioned --show-stderr says so rather
// than print nothing.
func TestSessionShowStderrOverHTTP(t *testing.T) {
	t.Parallel()
	url := startHTTPDemo(t)
	s := newSession(t, "web")
	s.run("list-tools", "--session", "web", "--", url).wantCode(t, 0)
	r := s.run("call", "echo", "message=hi", "--show-stderr", "--session", "web")
	r.wantCode(t, 0)
	r.wantStderr(t, "--show-stderr has nothing to show", "an HTTP target is a server run-mcp did not start: there is no stderr")
}

func itoa(n int) string { return strconv.Itoa(n) }
