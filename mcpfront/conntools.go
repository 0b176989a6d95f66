package mcpfront

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/snapshot"
	"github.com/run-mcp/run-mcp/wire"
)

// targetConfig builds a connection config from command/args/env/cwd/protocol.
func (f *front) targetConfig(a map[string]any) (actors.Config, error) {
	cfg := actors.Config{Era: f.era, Listing: true,
		RequestTimeout: time.Duration(getInt(a, "request_timeout_ms", 0)) * time.Millisecond}
	if p := getStr(a, "protocol"); p != "" {
		era, err := wire.ParseEra(p)
		if err != nil {
			return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "protocol: " + err.Error()}
		}
		cfg.Era = era
	}
	command := strings.TrimSpace(getStr(a, "command"))
	if server := getStr(a, "server"); server != "" {
		if command != "" {
			return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf(
				"give command or server, not both: server=%q names a registered entry, whose command is used", server)}
		}
		return f.serverConfig(cfg, server, a)
	}
	headers := getStrMap(a, "headers")
	if strings.HasPrefix(command, "http://") || strings.HasPrefix(command, "https://") {
		cfg.URL, cfg.Headers = command, headers
		return withOAuth(cfg, a)
	}
	if len(headers) > 0 {
		return cfg, stdioHeaders(headers)
	}
	if has(a, "oauth") {
		return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "oauth is for an http(s):// server; a server run-mcp starts over stdio takes its credentials from env"}
	}
	if command == "" {
		return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "command is empty: give the server's executable, e.g. command=node args=[dist/index.js], or server=<name> for one registered with a client (list_available_mcp_servers lists them)"}
	}
	args := getStrs(a, "args")
	if len(args) == 0 && strings.ContainsRune(command, ' ') && !fileExists(command) {
		// "node dist/index.js" in one string: split it rather than fail.
		fields := strings.Fields(command)
		command, args = fields[0], fields[1:]
	}
	dir := getStr(a, "cwd")
	if dir == "" {
		dir, _ = os.Getwd()
	}
	cfg.Spec = wire.Spec{Command: command, Args: args, Env: getStrMap(a, "env"), Dir: dir}
	return cfg, nil
}

// withOAuth sets cfg's OAuth client from the oauth argument.
func withOAuth(cfg actors.Config, a map[string]any) (actors.Config, error) {
	o := getObj(a, "oauth")
	cfg.OAuth.ClientID, cfg.OAuth.ClientSecret, cfg.OAuth.ClientMetadataURL = getStr(o, "client_id"), getStr(o, "client_secret"), getStr(o, "client_metadata_url")
	if cfg.OAuth.ClientSecret != "" && cfg.OAuth.ClientID == "" {
		return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "oauth.client_secret goes with oauth.client_id: give the ID of the client the secret belongs to"}
	}
	if u := cfg.OAuth.ClientMetadataURL; u != "" && !strings.HasPrefix(u, "https://") {
		return cfg, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf("oauth.client_metadata_url must be an https:// URL (the client ID metadata document), got %q", u)}
	}
	return cfg, nil
}

// stdioHeaders refuses headers for a server run-mcp starts rather than drop
// them: a process on stdio has no HTTP headers. Names only.
func stdioHeaders(h map[string]string) error {
	return &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: fmt.Sprintf(
		"headers (%s) reach an http(s):// server only: a server run-mcp starts talks over stdio, which has no headers. Pass its credentials in env instead",
		strings.Join(wire.EnvKeys(h), ", "))}
}

// eraHint is what to try when a server refused the legacy handshake, in
// the agent server's words: protocol is an argument of its tools.
const eraHint = `The server refused the legacy handshake: it may speak only the 2026-07-28 revision. Pass protocol "auto" (--protocol auto from a shell) or protocol "2026-07-28".`

// withEraHint puts eraHint under the first line of a connect the server
// refused as a server of 2026-07-28 alone does, keeping the error's type.
func withEraHint(err error) error {
	var refused *actors.LegacyRefusedError
	if !errors.As(err, &refused) {
		return err
	}
	return &actors.Advised{Err: err, Advice: eraHint}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (f *front) connect(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	cfg, err := f.targetConfig(a)
	if err != nil {
		return nil, err
	}
	cfg.Roots = getRoots(a)
	cfg.LogLevel = mcp.LoggingLevel(getStr(a, "log_level"))
	cfg.ConnectTimeout = time.Duration(getInt(a, "connect_timeout_ms", 0)) * time.Millisecond
	rc, err := f.reg.ConnectReport(ctx, getStr(a, "name"), cfg)
	if err != nil {
		err = withEraHint(err)
		var ce *actors.ConnectError
		if errors.As(err, &ce) {
			// What the server would have reached is part of the diagnosis.
			return nil, fmt.Errorf("%w\n%s", err, f.inputLine(ctx, len(cfg.Roots)))
		}
		return nil, err
	}
	info := rc.Info
	var b strings.Builder
	pid := ""
	if info.Pid > 0 {
		pid = fmt.Sprintf(" (PID: %d)", info.Pid)
	}
	fmt.Fprintf(&b, "Connected to MCP server%s\n", pid)
	if rc.HadPrior && len(getStrs(a, "include")) > 0 {
		// A connect in place of an earlier record of the same name, asked
		// to list what the server offers: what changed since (3.0 said so
		// only then; reconnect_to_mcp always does).
		b.WriteString(strings.Join(snapshot.Diff(rc.Before, info.Listing), "\n") + "\n")
	}
	f.describe(ctx, &b, info)
	fmt.Fprintf(&b, "Next: call_mcp_primitive type=tool name=<tool>; after editing the server, reconnect_to_mcp%s.\n", connHint(info.Name))
	f.includeBlocks(&b, info.Listing, getStrs(a, "include"), getBool(a, "summary"))
	if info.Instructions != "" {
		fmt.Fprintf(&b, "\nServer instructions:\n%s\n", info.Instructions)
	}
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}

func connHint(name string) string {
	if name == actors.DefaultName {
		return ""
	}
	return " connection=" + name
}

// describe writes the lines every connect, reconnect and status share.
func (f *front) describe(ctx context.Context, b *strings.Builder, info actors.Info) {
	fmt.Fprintf(b, "Command: %s\n", info.Target)
	if info.Transport != "stdio" {
		fmt.Fprintf(b, "Transport: %s. run-mcp did not start this server, so there is no stderr, no exit code and no stdout-noise check, and reconnect_to_mcp re-opens the session rather than restarting the server.\n", info.Transport)
	}
	fmt.Fprintf(b, "Connection: %s\n", info.Name)
	if info.ProtocolVersion == "" {
		b.WriteString("Protocol: none agreed (the handshake did not complete")
	} else {
		fmt.Fprintf(b, "Protocol: %s (%s", info.ProtocolVersion, info.Era)
	}
	if info.EraMode != wire.EraLegacy {
		fmt.Fprintf(b, ", asked with protocol=%s", info.EraMode)
	}
	b.WriteString(")\n")
	if info.Negotiation != "" {
		fmt.Fprintf(b, "Negotiation: %s\n", info.Negotiation)
	}
	if info.ServerInfo.Name != "" {
		fmt.Fprintf(b, "Server: %s %s\n", info.ServerInfo.Name, info.ServerInfo.Version)
	}
	fmt.Fprintf(b, "Capabilities: %s\n", capList(info.Capabilities))
	if l := info.Listing; l.Has.Tools || l.Has.Resources || l.Has.Prompts {
		// 3.0's line, which agents' prompts look for.
		fmt.Fprintf(b, "Tools available: %d\n", len(rawOf(l, "tools")))
		fmt.Fprintf(b, "Offers: %s\n", snapshot.Summary(l))
	}
	b.WriteString(f.inputLine(ctx, len(info.Roots)) + "\n")
	if l := info.Listen; l != nil {
		b.WriteString(listChangedLine(*l) + "\n")
	}
	if n := info.Noise; n.NoiseTotal > 0 || n.ErrorsTotal > 0 {
		b.WriteString(noiseSection(n))
	}
}

// listChangedLine says what the list_changed stream of a modern connection
// asked for and what the server honored, so a filter it accepted but will
// never deliver on is visible (3.0's words: "list_changed stream:
// requested …", "server honored …").
func listChangedLine(s actors.Stream) string {
	if s.Honored == nil {
		return fmt.Sprintf("list_changed stream: requested %s (subscriptions/listen); it failed: %s", actors.Describe(s.Asked), s.Err)
	}
	line := fmt.Sprintf("list_changed stream: requested %s (subscriptions/listen); server honored %s", actors.Describe(s.Asked), actors.Describe(*s.Honored))
	if missing := actors.Unhonored(s.Asked, *s.Honored); missing != "" {
		line += fmt.Sprintf(" (not honored: %s, so those notifications will never arrive)", missing)
	}
	return line
}

// uriHonored says whether a per-URI listen stream's server took the URI.
func uriHonored(s actors.Stream, uri string) string {
	switch {
	case s.Honored == nil:
		return fmt.Sprintf("the stream failed, so the server never honored the URI: %s", s.Err)
	case slices.Contains(s.Honored.ResourceSubscriptions, uri):
		return "the server honored the URI"
	}
	return fmt.Sprintf("the server did not honor the URI (it acknowledged %s), so notifications/resources/updated will never arrive for it", actors.Describe(*s.Honored))
}

// streamLines are status's lines for the open listen streams: the
// list_changed stream, then one "Resource subscriptions:" line.
func streamLines(streams []actors.Stream) []string {
	var lines, uris []string
	for _, s := range streams {
		uriOnly := s.Asked
		uriOnly.ResourceSubscriptions = nil
		if !uriOnly.IsEmpty() {
			lines = append(lines, listChangedLine(s))
		}
		for _, uri := range s.Asked.ResourceSubscriptions {
			uris = append(uris, fmt.Sprintf("%s (%s)", uri, uriHonored(s, uri)))
		}
	}
	if len(uris) > 0 {
		lines = append(lines, "Resource subscriptions: "+strings.Join(uris, ", "))
	}
	return lines
}

// inputLine says what a target's requests to the client will reach.
func (f *front) inputLine(ctx context.Context, roots int) string {
	c := f.hostCaps(ctx)
	return fmt.Sprintf("Client input forwarded to your host: elicitation forms %s, URL mode %s, sampling %s; roots answered by run-mcp (%d configured)",
		yesNo(c.ElicitForm), yesNo(c.ElicitURL), yesNo(c.Sampling), roots)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func capList(c mcp.ServerCapabilities) string {
	var caps []string
	if c.Tools != nil {
		caps = append(caps, "tools")
	}
	if c.Resources != nil {
		r := "resources"
		if c.Resources.Subscribe {
			r += " (subscribe)"
		}
		caps = append(caps, r)
	}
	if c.Prompts != nil {
		caps = append(caps, "prompts")
	}
	if c.Logging != nil {
		caps = append(caps, "logging")
	}
	if c.Completions != nil {
		caps = append(caps, "completions")
	}
	if len(caps) == 0 {
		return "none"
	}
	return strings.Join(caps, ", ")
}

func noiseSection(n wire.EvidenceSnapshot) string {
	var b strings.Builder
	if n.NoiseTotal > 0 {
		fmt.Fprintf(&b, "\n--- stdout noise: %d line(s) on stdout that are not JSON-RPC (stdout is the protocol channel; a strict client fails on these) ---\n", n.NoiseTotal)
		for _, x := range n.Noise {
			fmt.Fprintf(&b, "%s stdout line %d: %s\n", x.Time.Format("15:04:05.000"), x.Line, x.Text)
		}
	}
	if n.ErrorsTotal > 0 {
		fmt.Fprintf(&b, "\n--- transport errors: %d ---\n", n.ErrorsTotal)
		for _, x := range n.Errors {
			fmt.Fprintf(&b, "%s %s\n", x.Time.Format("15:04:05.000"), x.Message)
		}
	}
	return b.String()
}

func (f *front) reconnect(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	var eraErr error
	override := func(c *actors.Config) {
		if has(a, "roots") {
			c.Roots = getRoots(a)
		}
		if lvl := getStr(a, "log_level"); lvl != "" {
			c.LogLevel = mcp.LoggingLevel(lvl)
		}
		if p := getStr(a, "protocol"); p != "" {
			c.Era, eraErr = wire.ParseEra(p)
		}
		if has(a, "env") {
			c.Spec.Env = getStrMap(a, "env")
		}
		if has(a, "headers") && c.IsHTTP() {
			c.Headers = getStrMap(a, "headers")
		}
		if has(a, "oauth") && c.IsHTTP() {
			*c, eraErr = withOAuth(*c, a)
		}
		if has(a, "connect_timeout_ms") {
			c.ConnectTimeout = time.Duration(getInt(a, "connect_timeout_ms", 0)) * time.Millisecond
		}
		if has(a, "request_timeout_ms") {
			c.RequestTimeout = time.Duration(getInt(a, "request_timeout_ms", 0)) * time.Millisecond
		}
	}
	if p := getStr(a, "protocol"); p != "" {
		if _, err := wire.ParseEra(p); err != nil {
			return nil, &actors.CodedError{Code: actors.CodeInvalidArgument, Msg: "protocol: " + err.Error()}
		}
	}
	r, err := f.reg.Reconnect(ctx, getStr(a, "connection"), override)
	if eraErr != nil {
		return nil, eraErr
	}
	if err != nil {
		err = withEraHint(err)
		var ce *actors.ConnectError
		if !errors.As(err, &ce) {
			return nil, err // refused before any process was touched
		}
		old := "No process was running before this attempt"
		if r.Stopped != "" {
			old = "The old process was stopped first (" + r.Stopped + ")"
		}
		return nil, fmt.Errorf("Failed to reconnect: %s\n%s; get_mcp_server_stderr still shows why, and reconnect_to_mcp again once it is fixed",
			strings.TrimPrefix(err.Error(), "Failed to connect: "), old)
	}
	var b strings.Builder
	pid := ""
	if r.Info.Pid > 0 {
		pid = fmt.Sprintf(" (PID: %d)", r.Info.Pid)
	}
	fmt.Fprintf(&b, "Reconnected to MCP server%s\n", pid)
	if r.HadPrior {
		b.WriteString(strings.Join(snapshot.Diff(r.Before, r.Info.Listing), "\n") + "\n")
	} else {
		b.WriteString("Changes since last connection: no earlier listing to compare with\n")
	}
	f.describe(ctx, &b, r.Info)
	f.includeBlocks(&b, r.Info.Listing, getStrs(a, "include"), getBool(a, "summary"))
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}

func (f *front) disconnect(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	forget := getBool(a, "forget")
	d, err := f.reg.Disconnect(ctx, getStr(a, "connection"), forget)
	if err != nil {
		return nil, err
	}
	msg := "Disconnected from MCP server"
	if d.Pid > 0 {
		msg += fmt.Sprintf(" (was PID: %d, uptime: %.1fs).", d.Pid, d.Uptime.Seconds())
	} else if d.Uptime > 0 {
		msg += fmt.Sprintf(" (uptime: %.1fs).", d.Uptime.Seconds())
	} else {
		msg += "."
	}
	if forget {
		msg += " Its record was dropped."
	} else {
		msg += " Its record (stderr, exit) stays readable; reconnect_to_mcp starts it again."
	}
	return textResult(msg), nil
}

func (f *front) status(ctx context.Context, a map[string]any) (*mcp.CallToolResult, error) {
	if has(a, "task") {
		return f.taskStatus(ctx, a)
	}
	var conns []*actors.Conn
	if name := getStr(a, "connection"); name != "" {
		c, err := f.reg.Resolve(name, false)
		if err != nil {
			return nil, err
		}
		conns = []*actors.Conn{c}
	} else {
		conns = f.reg.Conns()
	}
	if len(conns) == 0 {
		return textResult("No target server connected. Call connect_to_mcp to start your server.\n" + f.inputLine(ctx, 0)), nil
	}
	var parts []string
	for _, c := range conns {
		st, err := c.Status(ctx)
		if err != nil {
			return nil, err
		}
		text := f.statusText(ctx, st)
		if streams, err := c.Streams(ctx); err == nil && len(streams) > 0 && st.Phase == actors.PhaseLive {
			text += fmt.Sprintf("\nListen streams open: %d\n", len(streams)) + strings.Join(streamLines(streams), "\n")
		}
		parts = append(parts, text)
	}
	head := ""
	if len(conns) > 1 {
		head = fmt.Sprintf("%d connections\n\n", len(conns))
		if last := f.reg.LastUsed(); last != "" {
			head = fmt.Sprintf("%d connections; most recently used: %s\n\n", len(conns), last)
		}
	}
	return textResult(head + strings.Join(parts, "\n\n")), nil
}

func (f *front) statusText(ctx context.Context, st actors.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Connection %s: %s", st.Name, st.Phase)
	if st.Why != "" && st.Phase != actors.PhaseLive {
		fmt.Fprintf(&b, " (%s)", st.Why)
	}
	// 3.0's line, which scripts and agents' prompts look for.
	fmt.Fprintf(&b, "\nConnected: %t\n", st.Phase == actors.PhaseLive)
	if st.Info != nil {
		if st.Info.Pid > 0 {
			fmt.Fprintf(&b, "PID: %d", st.Info.Pid)
			if st.Phase == actors.PhaseLive {
				fmt.Fprintf(&b, ", up %s", actors.Uptime(st.Uptime))
			}
			b.WriteString("\n")
		}
		f.describe(ctx, &b, *st.Info)
	} else {
		fmt.Fprintf(&b, "Command: %s\n%s\n", st.Config.Target(), f.inputLine(ctx, len(st.Config.Roots)))
	}
	switch {
	case st.Launcher != "" && st.Phase == actors.PhaseLive:
		fmt.Fprintf(&b, "Launcher: %s\n", st.Launcher)
	case st.Exit != "":
		fmt.Fprintf(&b, "Exit: %s\n", st.Exit)
	}
	for _, r := range st.Redirects {
		fmt.Fprintf(&b, "Redirect: %d from %s to %s", r.Status, r.From, r.To)
		if len(r.Withheld) > 0 {
			fmt.Fprintf(&b, " (not sent there: %s)", strings.Join(r.Withheld, ", "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%s\n", f.budgetsLine(st.Config))
	fmt.Fprintf(&b, "Calls in flight: %d", st.InFlight)
	if st.OpenRounds > 0 {
		fmt.Fprintf(&b, " (%d waiting on client input)", st.OpenRounds)
	}
	if t := openTasksText(st.OpenTasks); t != "" {
		b.WriteString("\n" + t)
	}
	fmt.Fprintf(&b, "\nNotifications received: %d\nStderr: %d line(s) (get_mcp_server_stderr%s since=0)\n", st.Notes, st.StderrLines, connHint(st.Name))
	if st.LastFailure != nil {
		fmt.Fprintf(&b, "\nLast connect failed:\n%s\n", st.LastFailure.Error())
	} else if st.Report != nil {
		ended := st.Ended
		if ended == "" {
			ended = "The server died."
		}
		fmt.Fprintf(&b, "\n%s\n%s\n", ended, st.Report.Render())
	}
	return strings.TrimRight(b.String(), "\n")
}

// budgetsLine names both deadlines a request of this connection has, and
// how to change each.
func (f *front) budgetsLine(cfg actors.Config) string {
	req := cfg.RequestTimeout
	if req <= 0 {
		req = f.opts.RequestTimeout
	}
	return fmt.Sprintf("Budgets: calls %d ms of server time each (timeout_ms of call_mcp_primitive, default --timeout); housekeeping requests (listings, subscribe, listen, ping) %d ms each (request_timeout_ms of connect_to_mcp/reconnect_to_mcp, default --request-timeout)",
		f.opts.Timeout.Milliseconds(), req.Milliseconds())
}
