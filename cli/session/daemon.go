package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/wire"
)

// DaemonCommand is the hidden subcommand a sessioned call starts.
const DaemonCommand = "session-daemon"

// Handler answers one operation that reaches the target (HandlerOps):
// reg holds the session's one connection, under name. It returns what the
// command would print and its exit code. cli registers it, so the daemon
// owns the protocol and cli owns what each operation prints.
type Handler func(ctx context.Context, reg *actors.Registry, name string, req *Request) Reply

// Deadlines of one connection: the request must arrive within
// requestWait (a client that connects and says nothing is dropped), and the
// reply must be taken within replyWait.
const (
	requestWait = 10 * time.Second
	replyWait   = 10 * time.Second
)

// Back-off after a failed accept (EMFILE and the like).
const (
	backoffMin = 5 * time.Millisecond
	backoffMax = time.Second
)

type daemon struct {
	reg      *actors.Registry
	handler  Handler
	dir      string
	name     string
	logger   *log.Logger
	lastUsed atomic.Int64 // unix nanos
	idle     atomic.Int64 // nanoseconds; 0: never
	inFlight atomic.Int64
	quit     chan struct{}
	quitOnce sync.Once
	socket   *socketWatch // the socket file it listens on
	// idleSet is signalled when a request changes the idle timeout.
	idleSet  chan struct{}
	handlers sync.WaitGroup

	recMu sync.Mutex
	rec   *Record
}

// RunDaemon is the session daemon: it reads its Spec from specIn, connects
// to the target, writes its StartStatus on status, then answers requests
// until close, the idle timeout, ctx or a permanent accept failure (an
// error: the daemon exits loudly rather than live deaf).
// words name the shell's flags in the engine's messages (timeouts); host
// stands behind the session (nil: nobody), so an HTTP target's
// authorization can reach a browser.
func RunDaemon(ctx context.Context, version string, words actors.Words, host actors.Host, h Handler, specIn io.Reader, status *os.File, logw io.Writer) error {
	logger := log.New(logw, "", log.LstdFlags|log.Lmicroseconds)
	var spec Spec
	if err := json.NewDecoder(io.LimitReader(specIn, MaxRequest)).Decode(&spec); err != nil {
		return reportStart(status, StartStatus{Code: ExitInternal, Error: "the session daemon got no valid spec: " + wire.JSONWords(err)})
	}
	if !ValidName(spec.Name) {
		return reportStart(status, StartStatus{Code: ExitUsage, Error: "the session daemon got an invalid session name"})
	}
	dir, err := safesocket.Dir()
	if err != nil {
		return reportStart(status, StartStatus{Code: ExitToolError, Error: err.Error()})
	}
	cfg, err := spec.Config()
	if err != nil {
		return reportStart(status, StartStatus{Code: ExitUsage, Error: err.Error()})
	}
	reg := actors.NewRegistry(actors.Options{MaxConnections: 1, Words: words, Host: host, ClientInfo: mcp.Implementation{Name: "run-mcp", Version: version}})
	defer reg.Close()
	info, err := reg.Connect(ctx, spec.Name, cfg)
	if err != nil {
		logger.Printf("session %s: the server failed to start: %v", spec.Name, err)
		st := StartStatus{Code: connectCode(ctx, err), Error: err.Error()}
		var ce *actors.ConnectError
		if errors.As(err, &ce) {
			st.Exit, st.Stderr = ce.Report.Exit, ce.Report.Stderr
		}
		return reportStart(status, st)
	}
	rec := NewRecord(dir, spec.Name, cfg, spec.IdleMinutes)
	rec.DaemonPid, rec.DaemonStart = os.Getpid(), StartOf(os.Getpid())
	rec.Pid, rec.ServerStart, rec.Negotiated = info.Pid, StartOf(info.Pid), info.ProtocolVersion
	ln, err := safesocket.Listen(rec.Socket)
	if err != nil {
		return reportStart(status, StartStatus{Code: ExitToolError, Error: err.Error()})
	}
	d0 := watchSocket(rec.Socket)
	defer d0.stop()
	defer func() {
		if !d0.lost(rec.Socket) { // not another daemon's, after ours was removed
			safesocket.Remove(rec.Socket)
		}
	}()
	if err := SaveRecord(dir, rec); err != nil {
		ln.Close()
		return reportStart(status, StartStatus{Code: ExitToolError, Error: err.Error()})
	}
	defer func() {
		if cur, _ := LoadRecord(dir, spec.Name); cur == nil || cur.DaemonPid == rec.DaemonPid {
			RemoveRecord(dir, spec.Name)
		}
	}()
	d := &daemon{reg: reg, handler: h, dir: dir, name: spec.Name, rec: rec, logger: logger, quit: make(chan struct{}), socket: d0,
		idleSet: make(chan struct{}, 1)}
	d.touch()
	d.idle.Store(int64(spec.IdleMinutes * float64(time.Minute)))
	logger.Printf("session %s: serving %s (PID %d) on %s", spec.Name, rec.Target, rec.Pid, rec.Socket)
	_ = reportStart(status, StartStatus{OK: true})
	err = d.serve(ctx, ln)
	if err != nil {
		logger.Printf("session %s: stopping: %v (its record is removed)", spec.Name, err)
		return err
	}
	logger.Printf("session %s: stopped", spec.Name)
	return nil
}

// connectCode maps a failed connect to its exit code.
func connectCode(ctx context.Context, err error) int {
	var ce *actors.ConnectError
	switch {
	case errors.As(err, &ce) && ce.NotFound:
		return ExitNoInput
	case ctx.Err() != nil:
		return ExitInterrupt
	}
	return ExitUnavail
}

func reportStart(status *os.File, st StartStatus) error {
	if status != nil {
		b, _ := json.Marshal(st)
		_, _ = status.Write(append(b, '\n'))
		_ = status.Close()
	}
	return nil
}

func (d *daemon) touch() { d.lastUsed.Store(time.Now().UnixNano()) }

// noIdleTimeout stands for a timer that never fires: a session without an
// idle timeout.
const noIdleTimeout = 1<<63 - 1

// idleLeft is how long until the session has been idle for its timeout, as
// far as is known now: its timer fires then, and idleOver looks again (a
// command may have come, or be running).
func (d *daemon) idleLeft() time.Duration {
	idle := time.Duration(d.idle.Load())
	if idle <= 0 {
		return noIdleTimeout
	}
	if d.inFlight.Load() > 0 {
		return idle // its end restarts the count
	}
	return max(idle-time.Since(time.Unix(0, d.lastUsed.Load())), 0)
}

// idleOver says the session has gone its idle timeout without a command.
func (d *daemon) idleOver() bool {
	idle := time.Duration(d.idle.Load())
	return idle > 0 && d.inFlight.Load() == 0 && time.Since(time.Unix(0, d.lastUsed.Load())) >= idle
}

func (d *daemon) stop() { d.quitOnce.Do(func() { close(d.quit) }) }

// serve answers requests until close-session, the idle timeout, a signal
// or an accept error that will not pass (returned).
//
// The requests still running when it stops are cancelled with why, so their
// callers are not told that they cancelled the call themselves.
func (d *daemon) serve(parent context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	defer cancel(nil)
	fatal := make(chan error, 1)
	go func() { fatal <- d.accept(ctx, ln) }()
	idle := time.NewTimer(d.idleLeft())
	defer idle.Stop()
	var err error
	why := "the session's daemon stopped"
loop:
	for {
		select {
		case <-parent.Done():
			d.logger.Printf("session %s: signalled to stop", d.name)
			why = "the session's daemon was signalled to stop"
			break loop
		case <-d.quit:
			why = "the session was closed (close-session)"
			break loop
		case err = <-fatal:
			fatal = nil
			if err != nil {
				break loop
			}
		case <-d.socket.changed():
			if d.socket.lost(d.rec.Socket) {
				d.logger.Printf("session %s: closing: its socket %s was removed or replaced (something cleaned the temp directory?), so no command can reach it", d.name, d.rec.Socket)
				why = "the session's socket was removed from under its daemon"
				break loop
			}
		case <-d.idleSet:
			idle.Reset(d.idleLeft())
		case <-idle.C:
			if d.idleOver() {
				d.logger.Printf("session %s: closing after %s without a command (--idle-timeout)", d.name, time.Duration(d.idle.Load()))
				break loop
			}
			idle.Reset(d.idleLeft())
		}
	}
	ln.Close()
	cancel(&actors.CallError{Code: actors.CodeCancelled, Reason: why + " while the call ran; the server was told (notifications/cancelled)"})
	if fatal != nil {
		<-fatal
	}
	d.handlers.Wait()
	return err
}

// accept hands each connection to a handler. A transient failure (out of
// file descriptors, an aborted connection) backs off, 5 ms doubling to 1 s,
// with one log line per episode; any other failure is returned.
func (d *daemon) accept(ctx context.Context, ln net.Listener) error {
	var delay time.Duration
	failures := 0
	for {
		c, err := ln.Accept()
		if err == nil {
			if failures > 0 {
				d.logger.Printf("session %s: accepting again after %d failed accept(s)", d.name, failures)
				failures, delay = 0, 0
			}
			d.handlers.Add(1)
			go func() {
				defer d.handlers.Done()
				d.handle(ctx, c)
			}()
			continue
		}
		if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
			return nil
		}
		if !transient(err) {
			return fmt.Errorf("accept on %s failed: %w", ln.Addr(), err)
		}
		if failures == 0 {
			d.logger.Printf("session %s: accept failed: %v; backing off (5ms doubling to 1s) and serving again when it passes", d.name, err)
		}
		failures++
		delay = min(max(delay*2, backoffMin), backoffMax)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil
		}
	}
}

// handle answers one request on one connection. A bad request is answered
// with an error; it never takes the daemon (and the session) down. The
// client closing the connection before the reply cancels the request.
func (d *daemon) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 4<<10) // small: a thousand connections at once stay cheap
	_ = c.SetReadDeadline(time.Now().Add(requestWait))
	line, err := ReadLine(br, MaxRequest)
	var tooLarge *TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		d.logger.Printf("session %s: refused a request: %v", d.name, err)
		d.reply(c, Reply{Code: ExitDataErr, Stderr: "run-mcp: the session daemon refused the request: " + err.Error() + "\n"})
		return
	case err != nil:
		return // nothing, or not in time: a probe, or a client that gave up
	}
	_ = c.SetReadDeadline(time.Time{})
	req, err := DecodeRequest(line)
	if err != nil {
		d.reply(c, errorReply(err))
		return
	}
	if req.Session != d.name {
		d.reply(c, Reply{Code: ExitUsage, Stderr: fmt.Sprintf("run-mcp: this daemon serves session %q, not %q; the request reached the wrong socket\n", d.name, req.Session)})
		return
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		var b [1]byte
		_, _ = br.Read(b[:]) // returns when the client hangs up, or when we close
		cancel(errors.New("the client hung up (Ctrl-C)"))
	}()
	reply := d.answer(ctx, req)
	d.reply(c, reply)
	c.Close()
	if req.Op != OpPing && req.Op != OpClose && reply.Code != ExitUsage {
		// After the reply: the client need not wait for the record.
		d.noteServer(ctx)
	}
	<-watched
	if req.Op == OpClose {
		d.stop()
	}
}

func errorReply(err error) Reply {
	code := ExitDataErr
	var se *Error
	if errors.As(err, &se) {
		code = se.Code
	}
	return Reply{Code: code, Stderr: "run-mcp: the session daemon refused the request: " + err.Error() + "\n"}
}

func (d *daemon) reply(c net.Conn, r Reply) {
	b, err := encodeLine(r)
	if err != nil {
		b, _ = encodeLine(Reply{Code: ExitInternal, Stderr: fmt.Sprintf("run-mcp: the session daemon could not encode its reply: %v\n", err)})
	}
	_ = c.SetWriteDeadline(time.Now().Add(replyWait))
	_, _ = c.Write(b)
}

// answer runs one decoded request; a panic in it is answered as exit 70
// and the daemon keeps serving.
func (d *daemon) answer(ctx context.Context, req *Request) (reply Reply) {
	defer func() {
		if r := recover(); r != nil {
			d.logger.Printf("session %s: internal error answering %s: %v\n%s", d.name, req.Op, r, debug.Stack())
			reply = Reply{Code: ExitInternal, Stderr: fmt.Sprintf("run-mcp: internal error in the session daemon answering %s: %v (the session is kept; its log has the stack)\n", req.Op, r)}
		}
	}()
	switch req.Op {
	case OpPing, OpClose:
		return Reply{Info: d.info(ctx)}
	}
	d.inFlight.Add(1)
	d.touch()
	defer func() {
		d.touch()
		d.inFlight.Add(-1)
	}()
	d.recMu.Lock()
	diff := d.rec.Mismatch(req.Caller)
	d.recMu.Unlock()
	if diff != "" {
		return Reply{Code: ExitUsage, Stderr: fmt.Sprintf("run-mcp: session %q %s. Omit the command (and --env, --protocol) to use it as it is, or run close-session %s to replace it\n", d.name, diff, d.name)}
	}
	if req.IdleMinutes != nil {
		d.idle.Store(int64(*req.IdleMinutes * float64(time.Minute)))
		d.update(func(r *Record) { r.IdleMinutes = *req.IdleMinutes })
		select {
		case d.idleSet <- struct{}{}:
		default: // the loop has one to read already
		}
	}
	return d.handler(ctx, d.reg, d.name, req)
}

// noteServer keeps the record's server current after a reconnect: its pid,
// so close-session can stop the right process even when the daemon is
// stuck, and no pid at all once a reconnect failed (a pid of a process that
// is gone may be reused by another); and the revision it negotiated.
func (d *daemon) noteServer(ctx context.Context) {
	in := d.info(context.WithoutCancel(ctx))
	d.recMu.Lock()
	changed := in.Pid != d.rec.Pid || (in.Protocol != "" && in.Protocol != d.rec.Negotiated)
	d.recMu.Unlock()
	if changed {
		d.update(func(r *Record) {
			r.Pid, r.ServerStart = in.Pid, StartOf(in.Pid)
			if in.Protocol != "" {
				r.Negotiated = in.Protocol
			}
		})
	}
}

func (d *daemon) update(fn func(*Record)) {
	d.recMu.Lock()
	defer d.recMu.Unlock()
	fn(d.rec)
	if err := SaveRecord(d.dir, d.rec); err != nil {
		d.logger.Printf("session %s: %v", d.name, err)
	}
}

func (d *daemon) info(ctx context.Context) *Info {
	in := &Info{DaemonPid: os.Getpid(), IdleMinutes: float64(d.idle.Load()) / float64(time.Minute)}
	if c, err := d.reg.Resolve(d.name, false); err == nil {
		if st, err := c.Status(ctx); err == nil {
			in.Phase = string(st.Phase)
			in.UptimeMS = st.Uptime.Milliseconds()
			if st.Info != nil && st.Phase == actors.PhaseLive {
				// A failed reconnect leaves the dead process's info: its pid
				// is no server's any more.
				in.Pid, in.Protocol = st.Info.Pid, st.Info.ProtocolVersion
			}
		}
	}
	return in
}
