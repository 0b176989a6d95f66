package validate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/oauth"
	"github.com/run-mcp/run-mcp/wire"
)

// stderrSettle lets a server finish its start-up output before stderr is
// scanned for crash signatures.
const stderrSettle = 200 * time.Millisecond

// Run spawns the target on a registry of its own (so it never touches
// anyone's connections), checks it, and stops it. opts give the client's
// name and the front end's words; the registry always holds one connection.
func Run(ctx context.Context, cfg actors.Config, opts actors.Options) Report {
	opts.MaxConnections, opts.IdleTimeout = 1, 0
	reg := actors.NewRegistry(opts)
	defer reg.Close()
	r := Report{Command: cfg.Target(), Capabilities: []string{}, Stderr: []string{}}
	if cfg.IsHTTP() && !userAuthorization(cfg.Headers) {
		r.authorization(ctx, cfg.URL, cfg.OAuth)
	}
	start := time.Now()
	info, err := reg.Connect(ctx, "validate", cfg)
	c, _ := reg.Resolve("validate", false)
	if err != nil {
		r.add("handshake_connection", Fail, "%s", firstLine(err.Error()))
		r.deadServer(ctx, c, err)
		r.finish()
		return r
	}
	r.add("handshake_connection", Pass, "connected in %dms", time.Since(start).Milliseconds())
	return check(ctx, c, info, cfg.IsHTTP(), r)
}

// Running validates a server that is already running (a session's), without
// restarting it.
func Running(ctx context.Context, c *actors.Conn, info actors.Info) Report {
	r := Report{Command: info.Target, Capabilities: []string{}, Stderr: []string{}}
	if c.Phase() != actors.PhaseLive {
		st, _ := c.Status(ctx)
		r.add("handshake_connection", Fail, "the server is not running: %s", st.Why)
		r.Exit = st.Exit
		r.stderr(ctx, c)
		r.finish()
		return r
	}
	r.add("handshake_connection", Pass, "used the already-running session (connected since %s); nothing was restarted", info.ConnectedAt.Format(time.TimeOnly))
	if info.Transport != "stdio" {
		r.authorization(ctx, info.Target, oauth.Options{})
	}
	return check(ctx, c, info, info.Transport != "stdio", r)
}

func check(ctx context.Context, c *actors.Conn, info actors.Info, isHTTP bool, r Report) Report {
	r.Connected = true
	r.describe(info)
	ch := &checker{r: &r, c: c, caps: info.Capabilities, modern: mcp.IsModernProtocol(info.ProtocolVersion)}
	ch.tools(ctx)
	ch.resources(ctx)
	ch.prompts(ctx)
	if mcp.IsModernProtocol(info.ProtocolVersion) {
		r.add("discover_result", Pass, "server/discover answered; the connection speaks %s", info.ProtocolVersion)
		ch.listChangedStream(ctx)
	}
	if isHTTP {
		r.add("stdout_protocol_channel", Skip, "an HTTP target has no stdout run-mcp can watch")
	} else {
		time.Sleep(stderrSettle)
		r.evidence(ctx, c, mcp.IsModernProtocol(info.ProtocolVersion))
	}
	if st, err := c.Status(ctx); err == nil && st.Phase != actors.PhaseLive {
		r.add("server_alive", Fail, "the server stopped while it was being checked: %s", st.Why)
		r.Exit = st.Exit
	}
	r.stderr(ctx, c)
	r.finish()
	return r
}

func (r *Report) describe(info actors.Info) {
	r.ServerName, r.ServerVersion = info.ServerInfo.Name, info.ServerInfo.Version
	r.ProtocolVersion, r.ProtocolEra = info.ProtocolVersion, info.Era
	r.add("protocol_era", Pass, "%s (%s)", info.ProtocolVersion, info.Era)
	switch {
	case info.ServerInfo.Name == "":
		r.add("implementation_metadata", Warn, "serverInfo has no name; clients show it to people")
	case info.ServerInfo.Version == "":
		r.add("implementation_metadata", Warn, "serverInfo %q has no version", info.ServerInfo.Name)
	default:
		r.add("implementation_metadata", Pass, "%s %s", info.ServerInfo.Name, info.ServerInfo.Version)
	}
	caps := info.Capabilities
	for name, on := range map[string]bool{"tools": caps.Tools != nil, "resources": caps.Resources != nil,
		"prompts": caps.Prompts != nil, "logging": caps.Logging != nil, "completions": caps.Completions != nil} {
		if on {
			r.Capabilities = append(r.Capabilities, name)
		}
	}
	sortStrings(r.Capabilities)
	r.add("server_capabilities", Pass, "%s", orNone(r.Capabilities))
}

// deadServer fills in how a server that never connected ended.
func (r *Report) deadServer(ctx context.Context, c *actors.Conn, err error) {
	var ce *actors.ConnectError
	if errors.As(err, &ce) {
		r.Exit = ce.Report.Exit
		if len(ce.Report.Noise) > 0 {
			r.add("stdout_protocol_channel", Fail, "%s", noiseMessage(len(ce.Report.Noise), ce.Report.Noise))
		}
	}
	if c != nil {
		r.stderr(ctx, c)
	}
}

func (r *Report) stderr(ctx context.Context, c *actors.Conn) {
	ex, ok, err := c.Stderr(ctx, 0, 0)
	if err != nil || !ok {
		return
	}
	r.Stderr = ex.Trim(50, 50).Render(true)
	var hits []string
	for _, l := range ex.Lines {
		if sig := crashSignature(l.Text); sig != "" {
			hits = append(hits, fmt.Sprintf("#%d %s", l.Seq, strings.TrimSpace(l.Text)))
		}
	}
	switch {
	case len(hits) > 0:
		r.add("stderr_warnings", Warn, "%d line(s) look like a crash or an error, first: %s", len(hits), hits[0])
	default:
		r.add("stderr_warnings", Pass, "%d line(s), none like a crash", ex.Total)
	}
}

// crashSignature names the kind of failure a stderr line shows, if any.
func crashSignature(line string) string {
	for _, sig := range []string{"Traceback (most recent call last)", "panic:", "UnhandledPromiseRejection",
		"Uncaught", "FATAL", "Segmentation fault", "Error:", "Exception"} {
		if strings.Contains(line, sig) {
			return sig
		}
	}
	return ""
}

func (r *Report) evidence(ctx context.Context, c *actors.Conn, modern bool) {
	ev, err := c.Evidence(ctx)
	if err != nil {
		return
	}
	if ev.NoiseTotal > 0 {
		r.add("stdout_protocol_channel", Fail, "%s", noiseMessage(ev.NoiseTotal, ev.Noise))
	} else {
		r.add("stdout_protocol_channel", Pass, "every line on stdout was JSON-RPC")
	}
	if ev.ErrorsTotal > 0 {
		r.add("transport_errors", Fail, "%d message(s) a strict client would reject, first: %s", ev.ErrorsTotal, ev.Errors[0].Message)
	} else {
		r.add("transport_errors", Pass, "none")
	}
	if !modern {
		return
	}
	var broken []string
	for _, e := range ev.Errors {
		if wire.IsEraViolation(e) {
			broken = append(broken, e.Message)
		}
	}
	if len(broken) > 0 {
		r.add("era_rules", Fail, "%d message(s) the 2026-07-28 era forbids, first: %s", len(broken), broken[0])
	} else {
		r.add("era_rules", Pass, "no server-to-client requests and no change notifications outside a subscriptions/listen stream")
	}
}

// quotedNoise is how many noise lines a check quotes.
const quotedNoise = 5

// noiseMessage is 3.0's wording ("2 non-JSON line(s)") with the lines
// quoted, each with its position on stdout.
func noiseMessage(total int, noise []wire.Noise) string {
	var quoted []string
	for i, n := range noise {
		if i == quotedNoise {
			quoted = append(quoted, fmt.Sprintf("and %d more", total-quotedNoise))
			break
		}
		quoted = append(quoted, fmt.Sprintf("line %d: %q", n.Line, n.Text))
	}
	return fmt.Sprintf("%d non-JSON line(s) on stdout, the protocol channel (a strict client fails on these; log to stderr): %s", total, strings.Join(quoted, ", "))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
