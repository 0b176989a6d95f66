//go:build !windows

package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runEnv runs run-mcp with extra variables in its own environment (which
// its servers do not inherit) and a PATH that starts with pathDir, if any.
func runEnv(t *testing.T, extra []string, pathDir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	c := commandIn(t, ctx, t.TempDir(), args...)
	c.Env = append(c.Env, extra...)
	if pathDir != "" {
		c.Env = append(c.Env, "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	_ = c.Run()
	return result{args: args, stdout: out.String(), stderr: errb.String(), code: c.ProcessState.ExitCode()}
}

// A server that fails at start naming a variable set in run-mcp's own
// environment, which servers do not inherit, is met with that fact and how
// to pass the variable on, by name: its value appears nowhere.
func TestStartFailureNamesAVariableNotPassed(t *testing.T) {
	t.Parallel()
	const secret = "sk-never-shown-4242"
	target := demo("--crash-at-start", "RUNMCP_E2E_TOKEN is not set")
	for _, words := range [][]string{{"list-tools"}, {"list-tools", "--session", "hinted"}, {"stderr"}, {"validate"}} {
		r := runEnv(t, []string{"RUNMCP_E2E_TOKEN=" + secret}, "", args(words, target)...)
		r.wantCode(t, 69)
		r.wantStderr(t, "names RUNMCP_E2E_TOKEN, which is set in your environment but not passed to the server",
			`--env RUNMCP_E2E_TOKEN="$RUNMCP_E2E_TOKEN"`)
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s: the variable's value was shown\n%s", words, r)
		}
	}
	// --raw carries it in the envelope's message.
	r := runEnv(t, []string{"RUNMCP_E2E_TOKEN=" + secret}, "", args([]string{"list-tools", "--raw"}, target)...)
	env := r.wantRawFailure(t, 69)
	if !strings.Contains(env.Error, "names RUNMCP_E2E_TOKEN") {
		t.Errorf("the envelope lacks the hint: %q", env.Error)
	}
	// Passed on, or not set at all, there is nothing to say.
	for _, extra := range [][]string{nil, {"RUNMCP_E2E_TOKEN=" + secret}} {
		words := []string{"list-tools"}
		if extra != nil {
			words = append(words, "--env", "RUNMCP_E2E_TOKEN=x")
		}
		r := runEnv(t, extra, "", args(words, target)...)
		r.wantCode(t, 69)
		if strings.Contains(r.stderr, "not passed to the server") {
			t.Errorf("a hint where none applies\n%s", r)
		}
	}
}

// A server started through npx that says nothing before the connect budget
// runs out may be a package still downloading: the failure says so.
func TestSilentNpxTimeoutMayBeDownloading(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// An npx that fetches forever, silently.
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runEnv(t, nil, dir, "list-tools", "--connect-timeout", "300", "--", "npx", "-y", "@example/slow-server")
	r.wantCode(t, 69)
	r.wantStderr(t, "npx may still be downloading @example/slow-server", "--connect-timeout")
	// A server that is not started through a package runner gets no such
	// hint.
	r = run(t, args([]string{"list-tools", "--connect-timeout", "300"}, demo("--silent-handshake"))...)
	r.wantCode(t, 69)
	if strings.Contains(r.stderr, "downloading") {
		t.Errorf("a download hint for a server not started by a package runner\n%s", r)
	}
}
