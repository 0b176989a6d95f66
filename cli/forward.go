package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// forward sends a sessioned call to its daemon, starting the daemon first
// when the session does not exist yet, and prints what the daemon printed.
// A warm call is one round trip: the daemon checks the caller's setup
// against its own. SIGINT, SIGTERM or SIGHUP hangs up, which cancels the
// call in the daemon (the target gets notifications/cancelled); the client
// exits 130, 143 or 129.
func forward(cmd *cobra.Command, g *globals, io streams, sp *split, req *session.Request) error {
	dir, err := safesocket.Dir()
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	caller, err := g.caller(cmd, sp)
	if err != nil {
		return err
	}
	// A running session answers on its socket, in the private directory just
	// checked: dialled first, its daemon wakes up while this command gets the
	// request ready, and its record is read only if the call goes wrong. A
	// session that does not answer is attached to, or started, from its
	// record, as it always was.
	name := g.session
	var rec *session.Record
	started := false
	conn, err := session.Dial(safesocket.Path(dir, name))
	if err != nil {
		if rec, started, err = attachOrStart(cmd, g, io, dir, sp); err != nil {
			return err
		}
		if conn, err = session.Dial(rec.Socket); err != nil && !started && namesItsServer(g, sp) && !rec.Alive() && !rec.Unreachable() {
			// A daemon that died (killed, or its machine slept through a
			// reboot of /tmp) left its record; this command gives the
			// server, so it starts the session afresh, as it would have
			// with no record, and says what became of the old one.
			session.Prune(dir, rec)
			io.status("run-mcp: session %q was gone: its daemon (PID %d) is no longer running, so its record was removed and the session is started again. Its log said: %s",
				name, rec.DaemonPid, session.LogTail(dir, name))
			if rec, started, err = attachOrStart(cmd, g, io, dir, sp); err != nil {
				return err
			}
			conn, err = session.Dial(rec.Socket)
		}
		if err != nil {
			return daemonTrouble(dir, rec, err, req, namesItsServer(g, sp))
		}
	}
	if !started {
		req.Caller = caller
	}
	req.Started = started
	req.Cwd, _ = os.Getwd()
	media := g.mediaKB
	req.Options = session.Options{Raw: g.raw, ShowStderr: g.showStderr, TimeoutMS: g.timeoutMS, OutDir: g.outDir,
		MediaThreshold: &media, MaxText: g.maxText, RequestTimeoutMS: g.requestMS, Debug: debugging(), Task: g.task}
	if g.idleSet {
		idle := g.idleTimeout
		req.IdleMinutes = &idle
	}
	// The signals are taken over on a goroutine of their own (the first
	// signal.Notify starts two threads of the runtime's and waits on them)
	// while the request goes, and before the client waits for the answer.
	// A signal before that ends the client by default, which hangs up the
	// socket just the same (the call is cancelled), as a signal during its
	// start always has.
	ctx, sig := interruptible(cmd.Context())
	defer sig.stop()
	wait := answerWait(g, req, rec)
	known := rec != nil // then its budgets are in wait already
	conn.Longer = func() time.Duration {
		if known {
			return 0
		}
		if rec == nil {
			rec = recordOf(dir, name)
		}
		return answerWait(g, req, rec) - wait
	}
	conn.Stuck = func() bool {
		if rec == nil {
			rec = recordOf(dir, name)
		}
		return rec.DaemonPid > 0 && session.Stopped(rec.DaemonPid)
	}
	reply, err := conn.Ask(ctx, *req, wait, sig.armed)
	if s := sig.received(); s != nil {
		e := exitf(signalCode(s), "interrupted by %s: the command was cancelled in session %q (a call in flight was sent notifications/cancelled); the session and its server keep running", signalName(s), name)
		e.Kind = codeInterrupted
		return e
	}
	var refused *session.Error
	if errors.As(err, &refused) {
		return err // the request itself (too large): the daemon is fine
	}
	if err != nil {
		if rec == nil {
			rec = recordOf(dir, name)
		}
		return daemonTrouble(dir, rec, err, req, namesItsServer(g, sp))
	}
	return printReply(io, reply, g.raw)
}

// answerWait is how long a command waits for its daemon's answer: its
// operation's budget (Request.Budget) plus session.Margin. The budgets come
// from the command's own flags, and what it does not set from the session's
// record when it has one in hand (nil: the defaults).
func answerWait(g *globals, req *session.Request, rec *session.Record) time.Duration {
	t := session.Timeouts{}
	if rec != nil {
		t = rec.Timeouts()
	}
	if g.connectTimeout > 0 && t.Connect == 0 {
		t.Connect = time.Duration(g.connectTimeout) * time.Millisecond
	}
	budget, _ := req.Budget(t)
	return budget + session.Margin
}

// printReply prints what the daemon printed. Under --raw a failure is one
// JSON envelope on stdout and nothing on stderr: the daemon's when it
// printed one, else one made here from its message (a refusal before the
// command ran, such as a different server under the same name).
func printReply(io streams, reply *session.Reply, raw bool) error {
	if reply.Stdout != "" {
		if _, err := io.out.Write([]byte(reply.Stdout)); err != nil {
			return stdoutFailed(err)
		}
	}
	if reply.Code == 0 || !raw {
		if reply.Stderr != "" {
			// The daemon made it safe already; one of another version may not have.
			_, _ = io.err.Write([]byte(terminalSafe(reply.Stderr)))
		}
		if reply.Code != 0 {
			return &ExitError{Code: reply.Code, Quiet: true, Err: errors.New("the sessioned call failed")}
		}
		return nil
	}
	if reply.Stdout != "" {
		return &ExitError{Code: reply.Code, Quiet: true, Err: errors.New("the sessioned call failed")}
	}
	msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reply.Stderr), "run-mcp: "))
	if msg == "" {
		msg = fmt.Sprintf("the session's daemon answered with exit code %d and no message; its log may say more", reply.Code)
	}
	return &ExitError{Code: reply.Code, Err: errors.New(msg)}
}

// namesItsServer says the command gives the server to run (after "--" or
// with --server), so that it can start the session itself.
func namesItsServer(g *globals, sp *split) bool { return len(sp.target) > 0 || g.server != "" }

// recordOf is a session's record for a report on its daemon, read once
// the call went wrong; a daemon that removed it on its way out leaves one
// that knows only its name and socket (and so is not alive).
func recordOf(dir, name string) *session.Record {
	if rec, err := session.LoadRecord(dir, name); err == nil && rec != nil {
		return rec
	}
	return &session.Record{Name: name, Socket: safesocket.Path(dir, name)}
}

// signals cancels a context on SIGINT or SIGTERM and remembers which.
type signals struct {
	got   chan os.Signal
	ready chan struct{}
	done  chan struct{}
}

// interruptible takes the stop signals (SIGINT, SIGTERM, SIGHUP) over from
// their default (ending the process) on a goroutine; armed waits for it.
// Hanging up the socket cancels the command in the daemon, and the client
// exits with the signal's code, as a one-shot command does.
func interruptible(parent context.Context) (context.Context, *signals) {
	ctx, cancel := context.WithCancel(parent)
	s := &signals{got: make(chan os.Signal, 1), ready: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer cancel()
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, stopSignals()...)
		close(s.ready)
		select {
		case v := <-ch:
			s.got <- v
		case <-s.done:
		}
	}()
	return ctx, s
}

// armed returns once the signals are taken over.
func (s *signals) armed() { <-s.ready }

// stop ends the goroutine. It leaves the signals taken over (signal.Stop
// waits on the runtime's signal thread again): the client exits once the
// call is done, and a signal in between is let pass.
func (s *signals) stop() { close(s.done) }

func (s *signals) received() os.Signal {
	select {
	case v := <-s.got:
		s.got <- v
		return v
	default:
		return nil
	}
}

func connectTimeoutOf(g *globals) time.Duration {
	if g.connectTimeout > 0 {
		return time.Duration(g.connectTimeout) * time.Millisecond
	}
	return actors.DefaultConnectTimeout
}

// caller is what the call says about the server, for the daemon's
// mismatch check; nil when it names neither a command, env nor a protocol.
func (g *globals) caller(cmd *cobra.Command, sp *split) (*session.Caller, error) {
	envGiven, protoGiven := len(g.env) > 0, cmd.Flags().Changed("protocol")
	headersGiven := len(g.headers) > 0 || g.bearerEnv != ""
	named := len(sp.target) > 0 || g.server != ""
	if !named && !envGiven && !protoGiven && !headersGiven {
		return nil, nil
	}
	c := &session.Caller{}
	if named {
		cfg, err := g.config(sp.target)
		if err != nil {
			return nil, err
		}
		c.Target, c.Command, c.Args, c.HTTP, c.Cwd = cfg.Target(), cfg.Spec.Command, cfg.Spec.Args, cfg.URL != "", cfg.Spec.Dir
		if headersGiven || len(cfg.Headers) > 0 {
			c.HeadersGiven, c.HeaderHashes = true, session.EnvHashes(cfg.Headers)
		}
		if g.server != "" && len(cfg.Spec.Env) > 0 {
			// The entry's env is part of what names the server.
			env := cfg.Spec.Env
			c.EnvGiven, c.EnvKeys, c.EnvHash, c.EnvHashes = true, wire.EnvKeys(env), session.EnvHash(env), session.EnvHashes(env)
		}
	}
	if headersGiven && !c.HeadersGiven {
		h, err := g.parseHeaders()
		if err != nil {
			return nil, err
		}
		c.HeadersGiven, c.HeaderHashes = true, session.EnvHashes(h)
	}
	if envGiven && !c.EnvGiven {
		env, err := g.parseEnv()
		if err != nil {
			return nil, err
		}
		c.EnvGiven, c.EnvKeys, c.EnvHash, c.EnvHashes = true, wire.EnvKeys(env), session.EnvHash(env), session.EnvHashes(env)
	}
	if protoGiven {
		era, _ := wire.ParseEra(g.protocol)
		c.Protocol = era.String()
	}
	return c, nil
}

// attachOrStart finds the session's record, or starts the session when the
// call names its target. started says this call started it (so there is
// nothing to compare).
func attachOrStart(cmd *cobra.Command, g *globals, io streams, dir string, sp *split) (*session.Record, bool, error) {
	name := g.session
	rec, err := session.LoadRecord(dir, name)
	if err != nil {
		return nil, false, exitf(ExitToolError, "%v", err)
	}
	if rec != nil {
		return rec, false, nil
	}
	if !namesItsServer(g, sp) {
		if claim := session.Starting(dir, name); claim != nil {
			// Another command is starting it: attach once it has started.
			return awaitStart(cmd, io, dir, name, claim)
		}
		why := ""
		if ended := session.HowItEnded(dir, name); ended != "" {
			why = fmt.Sprintf(": %s (its log: %s)", ended, session.LogPath(dir, name))
		}
		return nil, false, exitf(ExitUsage, "Session %q is not running%s. Start it by giving the server to run: run-mcp %s --session %s -- <your server command> (or --server NAME)", name, why, cmd.Name(), name)
	}
	cfg, err := g.config(sp.target)
	if err != nil {
		return nil, false, err
	}
	if g.saves {
		// A bad output directory fails before anything is spawned.
		if _, err := g.interceptor(); err != nil {
			return nil, false, err
		}
	}
	wait := connectTimeoutOf(g) + session.Margin
	claim := session.Claim{Target: cfg.Target(), Cwd: cfg.Spec.Dir, EnvKeys: wire.EnvKeys(cfg.Spec.Env), Protocol: cfg.Era.String(), IdleMinutes: g.idleTimeout}
	unlock, rec, err := session.ClaimStart(dir, name, wait, claim)
	if err != nil || rec != nil {
		return rec, false, err // another command started it meanwhile: attach
	}
	defer unlock()
	// Starting the session is the handshake a one-shot command waits for:
	// on a terminal it gets the same waiting line (and nothing else, as a
	// sessioned command prints only its result).
	done := io.withFeedback(cmd).fb.wait("the handshake with " + cfg.Target())
	rec, err = session.Start(dir, session.Spec{Name: name, Command: cfg.Spec.Command, Args: cfg.Spec.Args, Env: cfg.Spec.Env, Cwd: cfg.Spec.Dir,
		URL: cfg.URL, Headers: cfg.Headers, OAuth: cfg.OAuth, Protocol: cfg.Era.String(), ConnectTimeoutMS: g.connectTimeout, RequestTimeoutMS: g.requestMS, IdleMinutes: g.idleTimeout}, wait)
	done()
	if err != nil {
		return nil, false, sessionNeedsLogin(withStartHints(withEraHint(err, cfg.Era), cfg), cfg)
	}
	return rec, true, nil
}

// awaitStart waits for a session another command is starting (within the
// budget that command gives its start) and attaches to it. A start that
// ends without a session fails with what the daemon's log says.
func awaitStart(cmd *cobra.Command, io streams, dir, name string, claim *session.Claim) (*session.Record, bool, error) {
	done := io.withFeedback(cmd).fb.wait(fmt.Sprintf("session %s to start (PID %d is starting %s)", name, claim.Pid, claim.Target))
	rec := session.AwaitStart(dir, name, claim)
	done()
	if rec != nil {
		return rec, false, nil
	}
	code := ExitUsage
	if session.StartFailed(dir, name) {
		code = ExitUnavail
	}
	return nil, false, exitf(code, "Session %q did not start: the command that was starting it (PID %d) ended without it. Its daemon's log says: %s\n"+
		"Start it by giving the server to run: run-mcp %s --session %s -- <your server command> (or --server NAME)",
		name, claim.Pid, session.LogTail(dir, name), cmd.Name(), name)
}

// daemonTrouble explains a daemon that did not answer: took the request
// and stayed silent (wedged or busy, see silentDaemon), gone (its record is
// pruned and its log says why), or alive but not taking connections. A live
// daemon is never pruned. givesServer says the command names its server, so
// running it again starts the session afresh.
func daemonTrouble(dir string, rec *session.Record, err error, req *session.Request, givesServer bool) error {
	var silent session.ErrNoAnswer
	switch {
	case errors.As(err, &silent):
		return silentDaemon(dir, rec, silent.After, req)
	case rec.Alive():
		return exitf(ExitToolError, "the session daemon for %q (PID %d) is running but did not take the request (%v). It may be stopped or overloaded; its log is %s. close-session %s stops it",
			rec.Name, rec.DaemonPid, err, session.LogPath(dir, rec.Name), rec.Name)
	}
	if rec.Unreachable() {
		return unreachable(dir, rec)
	}
	session.Prune(dir, rec)
	again := fmt.Sprintf("Start it again by giving the server to run: run-mcp call --session %s -- <your server command> (or --server NAME)", rec.Name)
	if givesServer {
		// A daemon dying as the command reached it (its socket still
		// open for a moment): the request may have run, so it is not
		// sent again unasked.
		again = "Run the same command again: with the record removed, it starts the session afresh (the request may have reached the dying daemon, so run-mcp did not resend it)."
	}
	return exitf(ExitToolError, "session %q is gone: its daemon is not answering (%v), so its record was removed. Its log says: %s\n%s",
		rec.Name, err, session.LogTail(dir, rec.Name), again)
}

// unreachable stops a session whose daemon runs on without its socket
// (Record.Unreachable) and says so: left alone it would outlive its record.
func unreachable(dir string, rec *session.Record) error {
	closed, err := session.Close(dir, rec)
	if err != nil {
		return exitf(ExitToolError, "session %q cannot be reached: its socket %s is gone (something cleaned the temp directory), though its daemon (PID %d) still runs, and stopping it failed: %v",
			rec.Name, rec.Socket, rec.DaemonPid, err)
	}
	return exitf(ExitToolError, "session %q cannot be reached: its socket %s is gone (something cleaned the temp directory), though its daemon (PID %d) still ran. "+
		"Its daemon and server were stopped (%s) and its record removed, so nothing is left running.\n"+
		"Start it again by giving the server to run: run-mcp call --session %s -- <your server command> (or --server NAME)",
		rec.Name, rec.Socket, rec.DaemonPid, closed.StoppedBy, rec.Name)
}
