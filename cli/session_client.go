package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
)

// Margins on top of an operation's own timeout before the client gives up
// on the daemon.
const (
	answerMargin = 15 * time.Second
	pingWait     = 3 * time.Second
)

// forward sends a sessioned call to its daemon, starting the daemon first
// when the session does not exist yet, and prints what the daemon printed.
func forward(cmd *cobra.Command, g *globals, version string, raw []string, sp *split) error {
	dir, err := safesocket.Dir()
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	rec, err := attachOrStart(cmd, g, dir, sp)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	req := daemonRequest{Op: "run", Argv: append([]string{cmd.Name()}, raw...), Cwd: cwd}
	if g.idleTimeout > 0 {
		req.IdleMinutes = &g.idleTimeout
	}
	wait := max(g.callTimeout(headlessTimeout), connectTimeoutOf(g)) + answerMargin
	reply, err := ask(rec.Socket, req, wait)
	if err != nil {
		return daemonTrouble(dir, rec, err)
	}
	_, _ = cmd.OutOrStdout().Write([]byte(reply.Stdout))
	_, _ = cmd.ErrOrStderr().Write([]byte(reply.Stderr))
	if reply.Code != 0 {
		return &ExitError{Code: reply.Code, Quiet: true, Err: errors.New("the sessioned call failed")}
	}
	return nil
}

func connectTimeoutOf(g *globals) time.Duration {
	if g.connectTimeout > 0 {
		return time.Duration(g.connectTimeout) * time.Millisecond
	}
	return actors.DefaultConnectTimeout
}

// attachOrStart finds the running session (refusing a call that names a
// different server) or starts it when the call names its target.
func attachOrStart(cmd *cobra.Command, g *globals, dir string, sp *split) (*record, error) {
	name := g.session
	rec, err := loadRecord(dir, name)
	if err != nil {
		return nil, exitf(ExitToolError, "%v", err)
	}
	envGiven, protoGiven := len(g.env) > 0, cmd.Flags().Changed("protocol")
	if rec != nil {
		if _, err := ask(rec.Socket, daemonRequest{Op: "ping"}, pingWait); err != nil {
			return nil, daemonTrouble(dir, rec, err)
		}
		if len(sp.target) > 0 || envGiven || protoGiven {
			cfg, err := g.configFor(sp.target, rec)
			if err != nil {
				return nil, err
			}
			if diff := rec.mismatch(cfg, envGiven, protoGiven); diff != "" {
				return nil, exitf(ExitUsage, "session %q was started with a different setup: %s. Omit the command to attach to it, or close-session %s to replace it", name, diff, name)
			}
		}
		return rec, nil
	}
	if len(sp.target) == 0 {
		return nil, exitf(ExitUsage, "no session named %q is running. Start it by giving the server to run: run-mcp %s --session %s -- node my-server.js", name, cmd.Name(), name)
	}
	cfg, err := g.config(sp.target)
	if err != nil {
		return nil, err
	}
	unlock, rec, err := claimStart(dir, name, connectTimeoutOf(g)+answerMargin)
	if err != nil || rec != nil {
		return rec, err // another command started it meanwhile: attach
	}
	defer unlock()
	return startDaemon(dir, name, cfg, g)
}

// claimStart makes one command the starter of a session when several race
// to start it: the others wait for its record and attach. A claim older
// than limit is taken as abandoned.
func claimStart(dir, name string, limit time.Duration) (unlock func(), rec *record, err error) {
	lock := filepath.Join(dir, name+".starting")
	deadline := time.Now().Add(limit)
	for {
		if rec, _ := loadRecord(dir, name); rec != nil {
			return nil, rec, nil
		}
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid()) // so a dead claimant is seen at once
			f.Close()
			// The starter before us may have finished between the two looks.
			if rec, _ := loadRecord(dir, name); rec != nil {
				_ = os.Remove(lock)
				return nil, rec, nil
			}
			return func() { _ = os.Remove(lock) }, nil, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, nil, exitf(ExitToolError, "claim the start of session %q: %v", name, err)
		}
		if info, serr := os.Stat(lock); serr == nil && (time.Since(info.ModTime()) > limit || claimantGone(lock)) {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, nil, exitf(ExitToolError, "another command has been starting session %q for %s without finishing; remove %s if no run-mcp is running", name, limit, lock)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// configFor builds the config a later call describes; without a target it
// is the session's own command, so only env and protocol are compared.
func (g *globals) configFor(target []string, rec *record) (actors.Config, error) {
	if len(target) == 0 {
		target = append([]string{rec.Command}, rec.Args...)
		if rec.URL != "" {
			target = []string{rec.URL}
		}
	}
	return g.config(target)
}

// startDaemon spawns the session's daemon, detached, and waits for it to
// connect to the server. A server that fails to start leaves no session.
func startDaemon(dir, name string, cfg actors.Config, g *globals) (*record, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, exitf(ExitInternal, "find run-mcp's own binary to start the session daemon: %v", err)
	}
	spec, _ := json.Marshal(daemonSpec{Name: name, Command: cfg.Spec.Command, Args: cfg.Spec.Args, Env: cfg.Spec.Env, Cwd: cfg.Spec.Dir,
		URL: cfg.URL, Protocol: cfg.Era.String(), ConnectTimeoutMS: g.connectTimeout, IdleMinutes: g.idleTimeout})
	logf, err := os.OpenFile(logPath(dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, exitf(ExitToolError, "open the session log: %v", err)
	}
	defer logf.Close()
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, exitf(ExitInternal, "%v", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, exitf(ExitInternal, "%v", err)
	}
	defer statusR.Close()
	c := exec.Command(self, "session-daemon")
	c.Stdin, c.Stderr, c.ExtraFiles = specR, logf, []*os.File{statusW}
	c.SysProcAttr = detachedAttr() // outlives this command and its terminal
	err = c.Start()
	specR.Close()
	statusW.Close()
	if err != nil {
		specW.Close()
		return nil, exitf(ExitInternal, "start the session daemon: %v", err)
	}
	_, _ = specW.Write(spec)
	specW.Close()
	_ = c.Process.Release()
	return awaitStart(dir, name, statusR, connectTimeoutOf(g)+answerMargin)
}

// awaitStart reads the daemon's start status.
func awaitStart(dir, name string, status *os.File, wait time.Duration) (*record, error) {
	_ = status.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(status).ReadBytes('\n')
	var st startStatus
	if err != nil || json.Unmarshal(line, &st) != nil {
		return nil, exitf(ExitToolError, "the session daemon for %q stopped before it could report: %s", name, logTail(dir, name))
	}
	if !st.OK {
		code := st.Code
		if code == 0 {
			code = ExitUnavail
		}
		return nil, &ExitError{Code: code, Err: errors.New(st.Error)}
	}
	rec, err := loadRecord(dir, name)
	if err != nil || rec == nil {
		return nil, exitf(ExitToolError, "the session daemon for %q started but left no record: %s", name, logTail(dir, name))
	}
	return rec, nil
}

// claimantGone says the command that claimed a session's start has exited
// (interrupted mid-start), so its claim can be taken over at once.
func claimantGone(lock string) bool {
	b, err := os.ReadFile(lock)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false // being written: give it the benefit of the doubt
	}
	return processGone(pid)
}

// daemonTrouble explains a daemon that does not answer: dead (its log says
// why, and the record is pruned) or alive but silent (suspect the server or
// the daemon).
func daemonTrouble(dir string, rec *record, err error) error {
	var silent errNoAnswer
	if errors.As(err, &silent) {
		return exitf(ExitToolError, "the session daemon for %q took the request but did not answer within %s. "+
			"If `run-mcp stderr --session %s` shows the server busy or silent, suspect the server; if the daemon's log (%s) shows an error, suspect the daemon. close-session %s stops both",
			rec.Name, silent.after.Round(time.Second), rec.Name, logPath(dir, rec.Name), rec.Name)
	}
	prune(dir, rec)
	return exitf(ExitToolError, "session %q is gone: its daemon is not answering (%v), so its record was removed. Its log says: %s. Start it again by giving the server to run",
		rec.Name, err, logTail(dir, rec.Name))
}

func prune(dir string, rec *record) {
	removeRecord(dir, rec.Name)
	_ = os.Remove(rec.Socket)
}

// logTail is the last lines of a session's daemon log, for a death report.
func logTail(dir, name string) string {
	b, err := os.ReadFile(logPath(dir, name))
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return "(the daemon log is empty)"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return fmt.Sprintf("%s:\n  %s", logPath(dir, name), strings.Join(lines, "\n  "))
}
