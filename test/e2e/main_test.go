// Package e2e runs the built run-mcp binary as a user would, against its own
// demo server and the real npm servers, and checks what the user sees: the
// JSON on stdout, the text on stderr and the exit code.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

// bin is the run-mcp binary under test, built once in TestMain, with the
// fixtures it is run against.
var bin, badServer, schemasServer, oauthServer, browser string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "run-mcp-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, err = targets.BuildBinary(dir, "./cmd/run-mcp")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	badServer, err = targets.BuildBinary(dir, "./test/fixtures/badserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	schemasServer, err = targets.BuildBinary(dir, "./test/fixtures/schemas")
	if err == nil {
		oauthServer, err = targets.BuildBinary(dir, targets.OAuthServer)
	}
	if err == nil {
		browser, err = targets.BuildBinary(dir, targets.Browser)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// patience bounds every run. It is a deadline against hangs, not a timing
// assertion: nothing here comes close to it. Timing lives in test/bench.
const patience = 90 * time.Second

// result is what a user sees of one run.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
	took   time.Duration
	// maxRSSKB is the peak resident memory of run-mcp and the children it
	// reaped, in KB (Linux), or 0 where unknown.
	maxRSSKB int64
}

func (r result) String() string {
	return fmt.Sprintf("run-mcp %s\nexit %d after %s\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.args, " "), r.code, r.took.Round(time.Millisecond), clip(r.stdout), clip(r.stderr))
}

func clip(s string) string {
	if len(s) > 4000 {
		return s[:2000] + "\n[...]\n" + s[len(s)-2000:]
	}
	return s
}

// command prepares run-mcp with args, in a fresh working directory, with
// its outputs (intercepted media, spilled results) kept out of the repo.
func command(t *testing.T, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	return commandIn(t, ctx, t.TempDir(), args...)
}

// commandIn runs with TMPDIR=tmp, so commands of one test share session
// records (they live under the temp dir), and with run-mcp's configuration
// directory (the OAuth tokens) under it too, never the user's.
func commandIn(t *testing.T, ctx context.Context, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.CommandContext(ctx, bin, args...)
	c.Dir = t.TempDir()
	c.Env = append(os.Environ(), "TMPDIR="+tmp, "RUN_MCP_CONFIG_DIR="+filepath.Join(tmp, "run-mcp-config"), "BROWSER=")
	c.WaitDelay = 5 * time.Second
	return c
}

// run runs run-mcp to completion.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runIn(t, t.TempDir(), args...)
}

// runIn runs run-mcp to completion with TMPDIR=tmp.
func runIn(t *testing.T, tmp string, args ...string) result {
	t.Helper()
	return runWith(t, tmp, nil, args...)
}

// runWith is runIn with more environment (it wins over the defaults).
func runWith(t *testing.T, tmp string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := commandIn(t, ctx, tmp, args...)
	c.Env = append(c.Env, env...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := c.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if c.ProcessState != nil {
		r.maxRSSKB = maxRSSKB(c.ProcessState)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run-mcp %s: %v (a hang or a crash)\n%s", strings.Join(args, " "), err, r)
	}
	return r
}

// demo is the bundled demo server as a target command: -- <bin> demo-server [flags].
func demo(flags ...string) []string {
	return append([]string{"--", bin, "demo-server"}, flags...)
}

// args joins run-mcp's own words and a target.
func args(words []string, target []string) []string {
	return append(append([]string{}, words...), target...)
}

// everything is server-everything as a target, or a skip (a failure under CI=true).
func everything(t *testing.T) []string {
	t.Helper()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	return append([]string{"--"}, cmd...)
}

func (r result) wantCode(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\n%s", r.code, code, r)
	}
}

func (r result) wantStderr(t *testing.T, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q\n%s", s, r)
		}
	}
}

func (r result) wantNoStdout(t *testing.T) {
	t.Helper()
	if r.stdout != "" {
		t.Errorf("stdout must be empty on failure (it is the JSON channel)\n%s", r)
	}
}

// contentItem is one item of a result's content array: what call prints
// (3.0's shape; --raw prints the whole envelope).
type contentItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolResult is the part of a tools/call result (call --raw) the tests read.
type toolResult struct {
	Content []contentItem `json:"content"`
	IsError bool          `json:"isError"`
}

func (r result) json(t *testing.T, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not one JSON value: %v\n%s", err, r)
	}
	if dec.More() {
		t.Fatalf("stdout has more than one JSON value\n%s", r)
	}
}

// text is the first text item of the content array call prints.
func (r result) text(t *testing.T) string {
	t.Helper()
	var content []contentItem
	r.json(t, &content)
	if len(content) == 0 || content[0].Type != "text" {
		t.Fatalf("no text content\n%s", r)
	}
	return content[0].Text
}

// toolNames are the names in the JSON array list-tools prints.
func (r result) toolNames(t *testing.T) []string {
	t.Helper()
	var list []struct {
		Name string `json:"name"`
	}
	r.json(t, &list)
	names := make([]string, 0, len(list))
	for _, tl := range list {
		names = append(names, tl.Name)
	}
	return names
}

var connected = regexp.MustCompile(`(?m)^Connected to .* \(PID (\d+)\): .+, protocol (\S+) \((legacy|modern) era\), in \d+ms$`)

// connectedLine parses the status line of a successful connect: the target's
// pid and the negotiated protocol.
func (r result) connectedLine(t *testing.T) (pid int, protocol string) {
	t.Helper()
	m := connected.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no Connected line on stderr\n%s", r)
	}
	pid, _ = strconv.Atoi(m[1])
	return pid, m[2]
}

// dead says whether pid is gone, or a zombie (dead, awaiting its reaper).
func dead(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i <= 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X') {
		return false
	}
	// A killed Go process's first thread can be a zombie while its other
	// threads are still exiting and its descriptors (a daemon's listening
	// socket) still open: it is dead once no other thread is left.
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*")
	return len(tasks) <= 1
}

// children lists the child pids of pid across all its threads.
func children(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// descendants lists pid's children, their children, and so on.
func descendants(pid int) []int {
	var out []int
	for _, kid := range children(pid) {
		out = append(append(out, kid), descendants(kid)...)
	}
	return out
}

func requireProc(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("needs Linux /proc")
	}
}

// wantStdout fails unless stdout contains every sub.
func (r result) wantStdout(t *testing.T, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q\n%s", s, r)
		}
	}
}
