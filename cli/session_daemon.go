package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// binding is a command tree running inside a session daemon: its commands
// use the daemon's connection instead of spawning a server.
type binding struct {
	reg  *actors.Registry
	name string
	cwd  string
}

func (b *binding) run(ctx context.Context, fn func(context.Context, *actors.Conn, actors.Info) error) error {
	c, err := b.reg.Resolve(b.name, false)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	info := actors.Info{Name: b.name}
	if st.Info != nil {
		info = *st.Info
	}
	return fn(ctx, c, info)
}

// newSessionDaemonCmd is the hidden command a sessioned call starts.
func newSessionDaemonCmd(version string) *cobra.Command {
	return &cobra.Command{Use: "session-daemon", Hidden: true, Args: cobra.NoArgs,
		Short: "The background process of a --session (started by run-mcp itself)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals()...)
			defer stop()
			return runDaemon(ctx, version, os.Stdin, os.NewFile(3, "status"))
		}}
}

type daemon struct {
	reg      *actors.Registry
	version  string
	dir      string
	rec      *record
	logger   *log.Logger
	lastUsed atomic.Int64 // unix nanos
	idle     atomic.Int64 // nanoseconds; 0: never
	quit     chan struct{}
	quitOnce sync.Once
	handlers sync.WaitGroup
}

func runDaemon(ctx context.Context, version string, specIn io.Reader, status *os.File) error {
	logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
	var spec daemonSpec
	if err := json.NewDecoder(specIn).Decode(&spec); err != nil {
		return reportStart(status, startStatus{Code: ExitInternal, Error: "the session daemon got no valid spec: " + err.Error()})
	}
	dir, err := safesocket.Dir()
	if err != nil {
		return reportStart(status, startStatus{Code: ExitToolError, Error: err.Error()})
	}
	cfg, err := spec.config()
	if err != nil {
		return reportStart(status, startStatus{Code: ExitUsage, Error: err.Error()})
	}
	reg := actors.NewRegistry(actors.Options{MaxConnections: 1, ClientInfo: mcp.Implementation{Name: "run-mcp", Version: version},
		Logger: nil})
	defer reg.Close()
	info, err := reg.Connect(ctx, spec.Name, cfg)
	if err != nil {
		logger.Printf("session %s: the server failed to start: %v", spec.Name, err)
		return reportStart(status, startStatus{Code: CodeOf(connectFailure(ctx, err)), Error: err.Error()})
	}
	rec := newRecord(dir, spec.Name, cfg, spec.IdleMinutes)
	rec.DaemonPid, rec.Pid = os.Getpid(), info.Pid
	ln, err := safesocket.Listen(rec.Socket)
	if err != nil {
		return reportStart(status, startStatus{Code: ExitToolError, Error: err.Error()})
	}
	defer os.Remove(rec.Socket)
	if err := saveRecord(dir, rec); err != nil {
		ln.Close()
		return reportStart(status, startStatus{Code: ExitToolError, Error: err.Error()})
	}
	defer removeRecord(dir, spec.Name)
	d := &daemon{reg: reg, version: version, dir: dir, rec: rec, logger: logger, quit: make(chan struct{})}
	d.touch()
	d.idle.Store(int64(spec.IdleMinutes * float64(time.Minute)))
	logger.Printf("session %s: serving %s (PID %d) on %s", spec.Name, rec.Target, rec.Pid, rec.Socket)
	_ = reportStart(status, startStatus{OK: true})
	d.serve(ctx, ln)
	logger.Printf("session %s: stopped", spec.Name)
	return nil
}

func reportStart(status *os.File, st startStatus) error {
	if status != nil {
		b, _ := json.Marshal(st)
		_, _ = status.Write(append(b, '\n'))
		_ = status.Close()
	}
	return nil
}

func (s daemonSpec) config() (actors.Config, error) {
	era, err := wire.ParseEra(s.Protocol)
	if err != nil {
		return actors.Config{}, err
	}
	// Listing: a session's first life is listed whole, so the first
	// reconnect diffs against everything it offered.
	return actors.Config{Spec: wire.Spec{Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Cwd}, URL: s.URL, Era: era,
		ConnectTimeout: time.Duration(s.ConnectTimeoutMS) * time.Millisecond, Listing: true}, nil
}

func (d *daemon) touch() { d.lastUsed.Store(time.Now().UnixNano()) }

func (d *daemon) stop() { d.quitOnce.Do(func() { close(d.quit) }) }

// serve answers requests until close-session, the idle timeout or a signal.
func (d *daemon) serve(ctx context.Context, ln net.Listener) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d.handlers.Add(1)
			go func() {
				defer d.handlers.Done()
				d.handle(ctx, c)
			}()
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			d.logger.Printf("session %s: signalled to stop", d.rec.Name)
		case <-d.quit:
		case <-tick.C:
			if idle := time.Duration(d.idle.Load()); idle > 0 && time.Since(time.Unix(0, d.lastUsed.Load())) > idle {
				d.logger.Printf("session %s: closing after %s without a command (--idle-timeout)", d.rec.Name, idle)
			} else {
				continue
			}
		}
		break
	}
	ln.Close()
	cancel()
	d.handlers.Wait()
}

// handle answers one request on one connection. A bad request is answered
// with an error; it never takes the daemon (and the session) down.
func (d *daemon) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(c, 1<<20).ReadBytes('\n')
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var req daemonRequest
	var reply daemonReply
	if err := json.Unmarshal(line, &req); err != nil {
		reply = daemonReply{Code: ExitUsage, Stderr: fmt.Sprintf("run-mcp: the session daemon got a malformed request: %v\n", err)}
	} else {
		reply = d.answer(ctx, req)
	}
	b, _ := json.Marshal(reply)
	_, _ = c.Write(append(b, '\n'))
	if req.Op == "close" {
		d.stop()
	}
}

func (d *daemon) answer(ctx context.Context, req daemonRequest) daemonReply {
	switch req.Op {
	case "ping":
		return daemonReply{Info: d.info(ctx)}
	case "close":
		return daemonReply{Info: d.info(ctx)}
	case "run":
		d.touch()
		if req.IdleMinutes != nil {
			d.idle.Store(int64(*req.IdleMinutes * float64(time.Minute)))
			d.rec.IdleMinutes = *req.IdleMinutes
			_ = saveRecord(d.dir, d.rec)
		}
		defer d.touch()
		return d.run(ctx, req)
	}
	return daemonReply{Code: ExitUsage, Stderr: fmt.Sprintf("run-mcp: the session daemon does not know the request %q\n", req.Op)}
}

// run executes a command line against the session's connection, capturing
// what it would print, with a recovered panic reported as exit 70.
func (d *daemon) run(ctx context.Context, req daemonRequest) (reply daemonReply) {
	var out, errb bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			d.logger.Printf("session %s: internal error running %v: %v", d.rec.Name, req.Argv, r)
			reply = daemonReply{Code: ExitInternal, Stderr: fmt.Sprintf("run-mcp: internal error in the session daemon: %v (the session is kept)\n", r)}
		}
	}()
	root := newRoot(d.version, nil, &binding{reg: d.reg, name: d.rec.Name, cwd: req.Cwd})
	root.SetArgs(req.Argv)
	root.SetOut(&out)
	root.SetErr(&errb)
	code := execute(ctx, root, &errb)
	return daemonReply{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

func (d *daemon) info(ctx context.Context) *sessionInfo {
	in := &sessionInfo{DaemonPid: os.Getpid(), IdleMinutes: float64(d.idle.Load()) / float64(time.Minute)}
	if c, err := d.reg.Resolve(d.rec.Name, false); err == nil {
		if st, err := c.Status(ctx); err == nil {
			in.Phase = string(st.Phase)
			in.UptimeMS = st.Uptime.Milliseconds()
			if st.Info != nil {
				in.Pid = st.Info.Pid
			}
		}
	}
	return in
}
