package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/cli/session"
	"github.com/run-mcp/run-mcp/internal/safesocket"
	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// newReconnectCmd builds `reconnect --session NAME`: restart the session's
// server after an edit and report what changed, or how the new code died.
func newReconnectCmd(g *globals, version string) *cobra.Command {
	return newHeadlessCmd(g, version, headless{use: "reconnect --session <name> [-- target_command...]",
		short:        "Restart a session's server after an edit and print what changed",
		long:         "Restart a session's server after an edit and print what changed since the last connection. With a target command and a session that is not running, start it (once) and report that server.",
		example:      "  run-mcp reconnect --session main\n  run-mcp reconnect --session main -- node my-server.js",
		raw:          "Add to the report what the new server wrote: stderr (since the old one's last line), stdout_noise, transport_errors and protocol",
		needsSession: "reconnect restarts a session's server: pass --session <name> (a one-shot command starts a fresh server anyway)",
		run: func(ctx context.Context, x *job, _ *actors.Conn) error {
			return reconnectSession(ctx, x)
		}})
}

// reconnectSession prints 3.0's shapes: {"reconnected": true, "pid",
// "command", "changes"} or, when the new server fails to start,
// {"reconnected": false, "error", "exit", "stderr"} and exit 69. --raw adds
// to a success what the new process wrote (stderr since the old one's last
// line, the marker between them included), its stdout noise and transport
// errors.
func reconnectSession(ctx context.Context, x *job) error {
	if x.started {
		return reportStarted(ctx, x)
	}
	var w *watch
	if c, err := x.g.bound.reg.Resolve(x.g.bound.name, false); err == nil {
		w = startWatch(ctx, x, c)
	}
	r, err := x.g.bound.reg.Reconnect(ctx, x.g.bound.name, nil)
	if err != nil {
		out := map[string]any{"reconnected": false, "error": firstLineOf(err.Error())}
		if c, rerr := x.g.bound.reg.Resolve(x.g.bound.name, false); rerr == nil {
			if st, serr := c.Status(ctx); serr == nil && st.LastFailure != nil {
				out["exit"] = st.LastFailure.Report.Exit
				// The server's lines, as every stderr array from a shell
				// holds them (stderr --session has their times and seq).
				out["stderr"] = untimed(st.LastFailure.Report.Stderr)
			}
		}
		_ = x.io.printJSON(out)
		return &ExitError{Code: ExitUnavail, Quiet: true}
	}
	changes := []string{"Changes since last connection: no earlier listing to compare with"}
	if r.HadPrior {
		changes = snapshot.Diff(r.Before, r.Info.Listing)
	}
	out := map[string]any{"reconnected": true, "pid": r.Info.Pid, "command": r.Info.Target,
		"protocol": r.Info.ProtocolVersion, "changes": changes}
	if r.Info.Pid == 0 {
		// An HTTP target runs on its own: a reconnect only opens a new session.
		delete(out, "pid")
		out["restarted"] = false
		out["transport"] = r.Info.Transport
		out["note"] = "nothing was restarted: an HTTP target is a server run-mcp did not start, so run-mcp only closed its session and opened a new one. Restart the server yourself to load new code, then reconnect"
	}
	if !x.g.raw || w == nil {
		return x.io.printJSON(out)
	}
	w.ev = wire.EvidenceSnapshot{} // the new process's evidence is all new
	b, err := json.Marshal(out)
	if err != nil {
		return internalf("encode the reconnect report: %v", err)
	}
	merged, err := withFields(b, w.fields(ctx, r.Info.ProtocolVersion))
	if err != nil {
		return internalf("merge the reconnect report: %v", err)
	}
	return x.io.printJSON(merged)
}

// reportStarted answers a reconnect whose own command started the session
// (reconnect --session NEW -- cmd, as "is not running" suggests): the
// server it started is the one to report, so it is not restarted at once.
// The shape is a successful reconnect's, with started: true.
func reportStarted(ctx context.Context, x *job) error {
	c, err := x.g.bound.reg.Resolve(x.g.bound.name, false)
	if err != nil {
		return exitf(ExitToolError, "%v", err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.Info == nil {
		return exitf(ExitToolError, "the session was started but its server cannot be described (%v); run-mcp sessions shows it", err)
	}
	out := map[string]any{"reconnected": true, "started": true, "pid": st.Info.Pid, "command": st.Info.Target,
		"protocol": st.Info.ProtocolVersion, "changes": []string{"Changes since last connection: none to compare: this command started the session"}}
	if st.Info.Pid == 0 {
		delete(out, "pid")
		out["transport"] = st.Info.Transport
	}
	return x.io.printJSON(out)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// sessionListing is one row of `sessions`.
type sessionListing struct {
	Name string `json:"name"`
	// Pid is the server's, while one runs; null after a reconnect that
	// failed (the dead process's pid may be reused by another).
	Pid       *int     `json:"pid"`
	DaemonPid int      `json:"daemon_pid"`
	Phase     string   `json:"phase"`
	Command   string   `json:"command"`
	Cwd       string   `json:"cwd"`
	EnvKeys   []string `json:"env_keys"`
	// Protocol is the revision the server negotiated (its last one while
	// none runs), and ProtocolMode the --protocol the session was started
	// with (legacy, auto, or a pinned revision).
	Protocol     string    `json:"protocol"`
	ProtocolMode string    `json:"protocol_mode"`
	StartedAt    time.Time `json:"started_at"`
	Uptime       string    `json:"uptime"`
	IdleTimeout  string    `json:"idle_timeout"` // a duration, 3.0's shape: "3s", "90m"; "none"
	Note         string    `json:"note,omitempty"`
}

// idleText is an idle timeout in minutes as 3.0 showed it: whole minutes
// as "90m", else whole seconds as "3s", else milliseconds; "none" for 0
// (the session never closes itself).
func idleText(minutes float64) string {
	ms := int64(math.Round(minutes * 60_000))
	switch {
	case ms <= 0:
		return "none"
	case ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// pingWait is how long `sessions` waits for a daemon's live details. A
// daemon that does not answer in time is still listed when its process and
// socket are alive: slow is not dead.
const pingWait = time.Second

func newSessionsCmd() *cobra.Command {
	return &cobra.Command{Use: "sessions", Short: "List the running sessions as JSON", Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := safesocket.Dir()
			if err != nil {
				return exitf(ExitToolError, "%v", err)
			}
			rows := []sessionListing{}
			for _, rec := range session.Records(dir) {
				if rec.Unreachable() {
					// Not listed, and not left behind either: nothing could reach it.
					if closed, err := session.Close(dir, rec); err == nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "run-mcp: stopped session %q: its socket %s is gone (something cleaned the temp directory), so no command could reach its daemon (PID %d); stopped by %s\n",
							rec.Name, rec.Socket, rec.DaemonPid, closed.StoppedBy)
					} else {
						fmt.Fprintf(cmd.ErrOrStderr(), "run-mcp: session %q: its socket %s is gone but its daemon (PID %d) runs, and stopping it failed: %v\n", rec.Name, rec.Socket, rec.DaemonPid, err)
					}
					continue
				}
				if !rec.Alive() {
					session.Prune(dir, rec)
					fmt.Fprintf(cmd.ErrOrStderr(), "run-mcp: pruned session %q: its daemon (PID %d) is gone (log: %s)\n", rec.Name, rec.DaemonPid, session.LogPath(dir, rec.Name))
					continue
				}
				reply, err := session.Ask(cmd.Context(), rec.Socket, session.Request{Op: session.OpPing, Session: rec.Name}, pingWait)
				row := listing(rec, nil)
				if err == nil {
					row = listing(rec, reply.Info)
				} else {
					row.Phase = "not answering"
					row.Note = fmt.Sprintf("its daemon (PID %d) is alive but did not answer within %s (stopped or busy); close-session %s stops it", rec.DaemonPid, pingWait, rec.Name)
				}
				rows = append(rows, row)
			}
			rows = append(rows, startingRows(dir, rows)...)
			return streams{out: cmd.OutOrStdout()}.printJSON(rows)
		}}
}

// startingRows are the sessions whose server is starting, which have no
// record yet (and so no row among listed), by name: the command starting
// each says what it starts in its claim.
func startingRows(dir string, listed []sessionListing) []sessionListing {
	claims := session.Startings(dir)
	for _, row := range listed {
		delete(claims, row.Name)
	}
	rows := make([]sessionListing, 0, len(claims))
	for name, c := range claims {
		rows = append(rows, sessionListing{Name: name, DaemonPid: c.DaemonPid, Phase: "starting", Command: c.Target, Cwd: c.Cwd,
			EnvKeys: orEmpty(c.EnvKeys), ProtocolMode: c.Protocol, StartedAt: c.StartedAt,
			Uptime: time.Since(c.StartedAt).Round(time.Second).String(), IdleTimeout: idleText(c.IdleMinutes),
			Note: fmt.Sprintf("its server is starting (run-mcp PID %d started the session); a command for it waits until it has started", c.Pid)})
	}
	slices.SortFunc(rows, func(a, b sessionListing) int { return strings.Compare(a.Name, b.Name) })
	return rows
}

// listing is one row of `sessions`: from the record, and from the
// daemon's answer to a ping when it gave one (in), which is current where
// the record may lag (the pid and revision after a reconnect).
func listing(rec *session.Record, in *session.Info) sessionListing {
	l := sessionListing{Name: rec.Name, DaemonPid: rec.DaemonPid, Command: rec.Target, Cwd: rec.Cwd,
		EnvKeys: orEmpty(rec.EnvKeys), Protocol: rec.Negotiated, ProtocolMode: rec.Protocol, StartedAt: rec.StartedAt,
		Uptime: time.Since(rec.StartedAt).Round(time.Second).String(), IdleTimeout: idleText(rec.IdleMinutes)}
	pid := rec.Pid
	if in != nil {
		l.Phase, l.IdleTimeout, pid = in.Phase, idleText(in.IdleMinutes), in.Pid
		if in.Protocol != "" {
			l.Protocol = in.Protocol
		}
	}
	if pid > 0 {
		l.Pid = &pid
	}
	if l.Protocol == "" { // a record from before the revision was kept
		l.Protocol = rec.Protocol
	}
	return l
}

// oneSessionName is close-session's argument check, in words: it closes
// one named session.
func oneSessionName(_ *cobra.Command, args []string) error {
	switch len(args) {
	case 1:
		return nil
	case 0:
		return exitf(ExitUsage, "close-session needs the name of the session to close: run-mcp close-session NAME (run-mcp sessions lists the running ones)")
	}
	return exitf(ExitUsage, "close-session closes one session at a time, got %d names (%s); run it once for each", len(args), strings.Join(args, ", "))
}

// noArgs refuses words after a command that takes none, in words.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return exitf(ExitUsage, "run-mcp %s takes no arguments, got %q; run-mcp %s --help lists its flags", cmd.Name(), args[0], cmd.Name())
}

func newCloseSessionCmd() *cobra.Command {
	return &cobra.Command{Use: "close-session <session_name>", Short: "Stop a session's server and its daemon", Args: oneSessionName,
		ValidArgsFunction: completeSessionName,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !session.ValidName(name) {
				return badSessionName(name)
			}
			dir, err := safesocket.Dir()
			if err != nil {
				return exitf(ExitToolError, "%v", err)
			}
			rec, err := session.LoadRecord(dir, name)
			if err != nil {
				session.RemoveRecord(dir, name)
				return exitf(ExitToolError, "%v; it was removed", err)
			}
			if claim := session.Starting(dir, name); rec == nil && claim != nil {
				// Closed once started: a start cannot be cut short cleanly.
				rec = session.AwaitStart(dir, name, claim)
			}
			if rec == nil {
				return exitf(ExitToolError, "no session named %q is running (run-mcp sessions lists them)", name)
			}
			closed, err := session.Close(dir, rec)
			if err != nil {
				return err
			}
			return streams{out: cmd.OutOrStdout()}.printJSON(closed)
		}}
}
