//go:build !windows

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startInBackground starts the session's first command, whose server takes
// a while to start (script, run by sh), and waits until it has claimed the
// start. wait ends it and returns how it ended.
func (s *session) startInBackground(script string) (wait func() result) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	args := []string{"list-tools", "--session", s.name, "--", "sh", "-c", script}
	c := s.command(ctx, args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		cancel()
		s.t.Fatal(err)
	}
	ended := make(chan result, 1)
	go func() {
		err := c.Wait()
		code := 0
		if err != nil {
			code = c.ProcessState.ExitCode()
		}
		ended <- result{args: args, stdout: out.String(), stderr: errb.String(), code: code}
	}()
	var r result
	done := false
	wait = func() result {
		if !done {
			r, done = <-ended, true
		}
		return r
	}
	s.t.Cleanup(func() {
		cancel()
		wait()
	})
	claim := filepath.Join(s.dir(), s.name+".starting")
	eventually(s.t, "the first command to claim the session's start", func() bool {
		_, err := os.Stat(claim)
		return err == nil
	})
	return wait
}

// TestAttachingWhileTheServerStartsWaitsForIt: a command that attaches to a
// session whose server is still starting (here for 6 s) waits for the start
// instead of failing with "is not running", and `sessions` lists the
// session meanwhile as starting, with what it starts.
func TestAttachingWhileTheServerStartsWaitsForIt(t *testing.T) {
	t.Parallel()
	s := newSession(t, "slowstart")
	first := s.startInBackground("sleep 6; exec " + bin + " demo-server")

	r := s.run("sessions")
	var rows []struct {
		Name    string `json:"name"`
		Phase   string `json:"phase"`
		Command string `json:"command"`
		Pid     *int   `json:"pid"`
		Note    string `json:"note"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil {
		t.Fatalf("sessions during a start:\n%s", r)
	}
	if len(rows) != 1 || rows[0].Name != "slowstart" || rows[0].Phase != "starting" || !strings.Contains(rows[0].Command, "sleep 6") || rows[0].Pid != nil {
		t.Errorf("sessions must list the session as starting, with its command and no server pid yet:\n%s", r)
	}

	r = s.run("call", "echo", "message=attached", "--session", "slowstart")
	if r.code != 0 || !strings.Contains(r.stdout, "echo: attached") {
		t.Fatalf("a command attaching during the start must wait for it and be answered:\n%s", r)
	}
	if f := first(); f.code != 0 || !strings.Contains(f.stdout, "echo") {
		t.Fatalf("the command that started the session:\n%s", f)
	}
	if r := s.run("sessions"); !strings.Contains(r.stdout, `"phase": "live"`) {
		t.Errorf("the started session is not listed live:\n%s", r)
	}
}

// TestAttachingToAStartThatFailsSaysWhy: a command waiting for a start that
// fails is told so, with what the daemon's log says (the server's own
// words), and exits 69, as the command that started it does.
func TestAttachingToAStartThatFailsSaysWhy(t *testing.T) {
	t.Parallel()
	s := newSession(t, "doomed")
	first := s.startInBackground("sleep 3; echo 'fatal: no config at /etc/doomed' >&2; exit 3")
	r := s.run("stderr", "--session", "doomed")
	if r.code != 69 || !strings.Contains(r.stderr, `Session "doomed" did not start`) || !strings.Contains(r.stderr, "fatal: no config at /etc/doomed") {
		t.Errorf("a command waiting for a failed start must say so, with the server's words, and exit 69:\n%s", r)
	}
	if f := first(); f.code != 69 {
		t.Errorf("the command that started the session exits 69:\n%s", f)
	}
	if r := s.run("sessions"); strings.Contains(r.stdout, "doomed") {
		t.Errorf("a failed start is still listed:\n%s", r)
	}
}
